import { withConflictRetry } from "../core/conditional-write.js";
import type { MemoryRecord } from "../model/record.js";
import { ANONYMOUS } from "../model/subject.js";
import { isExpired, isScheduled, type RecordQuery, type Store } from "../store/index.js";

/** Operator reads see every owner's records: the operator opened the store directly. */
export function operatorQuery(scope: string | undefined, now: number): RecordQuery {
  return { subject: ANONYMOUS, allOwners: true, scope, gate: null, now };
}

export type ScanRow = {
  scope: string;
  category: string;
  live: number;
  archived: number;
  expired: number;
  superseded: number;
  scheduled: number;
  bytes: number;
};
export type ScanReport = { scopes: number; total: number; rows: ScanRow[] };

/**
 * Inventory by scope and category. Live is exactly what recall can see now;
 * every record recall hides counts in the bucket of the first reason it is
 * hidden for, in the order the CLI prints state words (archived, superseded,
 * expired, scheduled), so the buckets add up to the total.
 */
export async function scan(store: Store, scope: string | undefined, now: number): Promise<ScanReport> {
  const { records } = await store.list(operatorQuery(scope, now), { order: "asc", limit: Number.MAX_SAFE_INTEGER });
  const rows = new Map<string, ScanRow>();
  for (const r of records) {
    const key = `${r.scope}\u0000${r.category}`;
    const row = rows.get(key) ?? { scope: r.scope, category: r.category, live: 0, archived: 0, expired: 0, superseded: 0, scheduled: 0, bytes: 0 };
    const window = { notBefore: r.not_before ?? null, notAfter: r.not_after ?? null };
    if (r.archived_at) row.archived++;
    else if (r.superseded_by) row.superseded++;
    else if (isExpired(window, now)) row.expired++;
    else if (isScheduled(window, now)) row.scheduled++;
    else row.live++;
    row.bytes += r.content_bytes ?? Buffer.byteLength(r.content);
    rows.set(key, row);
  }
  const list = [...rows.values()].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.category < b.category ? -1 : 1));
  return { scopes: new Set(list.map((r) => r.scope)).size, total: records.length, rows: list };
}

export async function recordsWithCitations(store: Store, scope: string | undefined, now: number): Promise<MemoryRecord[]> {
  const { records } = await store.list(operatorQuery(scope, now), { order: "asc", limit: Number.MAX_SAFE_INTEGER });
  return records.filter((r) => r.citations.length > 0);
}

export type OperatorFlipRow = { requested: string; id: string; outcome: "changed" | "already" | "not_found" };

/**
 * Operator archive/restore by id, any owner. A preview reports what would
 * change and writes nothing.
 */
export async function operatorFlip(
  store: Store,
  ids: readonly string[],
  opts: { archive: boolean; apply: boolean; now: Date },
): Promise<OperatorFlipRow[]> {
  const rows: OperatorFlipRow[] = [];
  // A conditional write, like the server's: a server writing the same
  // record meanwhile makes this flip read it again rather than undo that write.
  for (const requested of ids) rows.push(await withConflictRetry([requested], () => flipOne(store, requested, opts)));
  return rows;
}

async function flipOne(store: Store, requested: string, opts: { archive: boolean; apply: boolean; now: Date }): Promise<OperatorFlipRow> {
  const r = await store.resolve(requested);
  const rec = r.kind === "id" ? await store.getRaw(r.id) : undefined;
  if (!rec) return { requested, id: "", outcome: "not_found" };
  const already = opts.archive ? !!rec.archived_at : !rec.archived_at;
  if (already) return { requested, id: rec.id, outcome: "already" };
  if (opts.apply) {
    const next = { ...rec };
    if (opts.archive) next.archived_at = opts.now.toISOString();
    else delete next.archived_at;
    await store.replace(next);
  }
  return { requested, id: rec.id, outcome: "changed" };
}
