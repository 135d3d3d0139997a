import type { BatchArgs } from "./args.js";
import { checkBatchIds } from "./batch-shape.js";
import { withConflictRetry } from "./conditional-write.js";
import type { CoreDeps } from "./deps.js";
import type { Subject } from "../model/subject.js";

/** Every outcome a batch row can have, in the words every lane says it with (Connect's enum names are these, upper-cased). */
export const ARCHIVE_OUTCOMES = ["archived", "already_archived", "restored", "not_archived", "not_found"] as const;
export type ArchiveOutcome = (typeof ARCHIVE_OUTCOMES)[number];
export type ArchiveRow = { requested: string; id: string; outcome: ArchiveOutcome };

/**
 * One outcome per id, in order, duplicates reported per occurrence. There
 * is no cross-record atomicity: each flip is idempotent and reversible.
 * A not_found row carries no id, whatever the reason.
 */
async function flip(deps: CoreDeps, subject: Subject, a: BatchArgs, archive: boolean): Promise<ArchiveRow[]> {
  const ids = checkBatchIds(a.ids, deps.limits);
  const rows: ArchiveRow[] = [];
  for (const requested of ids) rows.push(await withConflictRetry([requested], () => flipOne(deps, subject, requested, archive)));
  return rows;
}

/** One read and at most one conditional write; a lost race re-runs it from the read. */
async function flipOne(deps: CoreDeps, subject: Subject, requested: string, archive: boolean): Promise<ArchiveRow> {
  const r = await deps.store.resolve(requested);
  const rec = r.kind === "id" ? await deps.store.getOwned(r.id, subject) : undefined;
  if (!rec) return { requested, id: "", outcome: "not_found" };
  if (archive) {
    if (rec.archived_at) return { requested, id: rec.id, outcome: "already_archived" };
    await deps.store.replace({ ...rec, archived_at: deps.now().toISOString() });
    return { requested, id: rec.id, outcome: "archived" };
  }
  if (!rec.archived_at) return { requested, id: rec.id, outcome: "not_archived" };
  const next = { ...rec };
  delete next.archived_at;
  await deps.store.replace(next);
  return { requested, id: rec.id, outcome: "restored" };
}

export const archiveMemory = (deps: CoreDeps, s: Subject, a: BatchArgs) => flip(deps, s, a, true);
export const restoreMemory = (deps: CoreDeps, s: Subject, a: BatchArgs) => flip(deps, s, a, false);

/** "archived 2, not_found 1": a count per outcome, in first-seen order. */
export function outcomeSummary(rows: readonly ArchiveRow[]): string {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  return [...counts].map(([o, n]) => `${o} ${n}`).join(", ");
}
