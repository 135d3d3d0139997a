import { ambiguousShortId, notFound } from "../argerror/index.js";
import type { CoreDeps } from "./deps.js";
import type { MemoryRecord } from "../model/record.js";
import { checkIdBytes } from "./resolve.js";
import type { Subject } from "../model/subject.js";

/**
 * For writes that may replace a record in place by `id`: the caller's own
 * record, or nothing when a fresh UUID names a point that does not exist
 * yet. Someone else's record is "not found", as everywhere.
 */
export async function ownedOrAbsent(
  deps: CoreDeps,
  subject: Subject,
  input: string,
): Promise<{ id: string; existing?: MemoryRecord }> {
  checkIdBytes(deps, input);
  const r = await deps.store.resolve(input);
  if (r.kind === "not_found") throw notFound([input]);
  if (r.kind === "ambiguous") throw ambiguousShortId(input);
  const raw = await deps.store.getRaw(r.id);
  if (!raw) return { id: r.id };
  const owned = await deps.store.getOwned(r.id, subject);
  if (!owned) throw notFound([input]);
  return { id: r.id, existing: owned };
}
