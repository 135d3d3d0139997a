import { ambiguousShortId, argError, notFound } from "../argerror/index.js";
import type { CoreDeps } from "./deps.js";
import type { MemoryRecord } from "../model/record.js";
import { checkIdInput } from "./resolve.js";
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
  checkIdInput(deps, input);
  const r = await deps.store.resolve(input);
  if (r.kind === "not_found") throw notFound([input]);
  if (r.kind === "ambiguous") throw ambiguousShortId(input);
  const raw = await deps.store.getRaw(r.id);
  if (!raw) {
    // Ids of version 5 are derived from an owner, a scope and an idempotency key: one seeded here
    // would take the id another caller's first keyed write must land on, and refuse that write.
    if (uuidVersion(r.id) === "5") throw argError("id", "format", "id must not be a name-based (version 5) UUID: those are reserved for idempotency keys");
    return { id: r.id };
  }
  const owned = await deps.store.getOwned(r.id, subject);
  if (!owned) throw notFound([input]);
  if (owned.category !== category) throw argError("id", "not_applicable", `id names a record that is not a ${category}`);
  return { id: r.id, existing: owned };
}

/** The version digit of a canonical UUID. */
function uuidVersion(id: string): string | undefined {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-/i.exec(id)?.[1];
}

/**
 * What a replace in place keeps of the record it replaces: its identity and
 * its place in the lifecycle. The caller sends new content, not a new state,
 * so a superseded discovery stays superseded (its chain keeps one live head)
 * and an archived rule stays archived until it is restored.
 */
export function keepState(rec: MemoryRecord, existing: MemoryRecord): void {
  rec.short_id = existing.short_id;
  rec.created_at = existing.created_at;
  rec.revision = existing.revision;
  rec.supersedes = [...existing.supersedes];
  rec.access_count = existing.access_count;
  for (const key of ["superseded_by", "archived_at", "not_before", "not_after", "last_accessed_at"] as const) {
    if (existing[key] === undefined) delete rec[key];
    else (rec as Record<typeof key, unknown>)[key] = existing[key];
  }
}
