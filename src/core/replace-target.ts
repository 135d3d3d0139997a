import { ambiguousShortId, argError, notFound } from "../argerror/index.js";
import type { CoreDeps } from "./deps.js";
import type { MemoryRecord } from "../model/record.js";
import { checkIdBytes } from "./resolve.js";
import type { Subject } from "../model/subject.js";

/**
 * For writes that may replace a record in place by `id`: the caller's own
 * record of `category`, or nothing when a fresh UUID names a point that does
 * not exist yet. Someone else's record is "not found", as everywhere; one of
 * the caller's own of another category is refused, so a discovery or a rule
 * cannot silently take over a memory.
 */
export async function ownedOrAbsent(
  deps: CoreDeps,
  subject: Subject,
  input: string,
  category: "discovery" | "rule",
): Promise<{ id: string; existing?: MemoryRecord }> {
  checkIdBytes(deps, input);
  const r = await deps.store.resolve(input);
  if (r.kind === "not_found") throw notFound([input]);
  if (r.kind === "ambiguous") throw ambiguousShortId(input);
  const raw = await deps.store.getRaw(r.id);
  if (!raw) return { id: r.id };
  const owned = await deps.store.getOwned(r.id, subject);
  if (!owned) throw notFound([input]);
  if (owned.category !== category) throw argError("id", "not_applicable", `id names a record that is not a ${category}`);
  return { id: r.id, existing: owned };
}
