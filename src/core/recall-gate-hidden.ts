import type { MemoryRecord } from "../model/record.js";
import type { RecordQuery } from "../store/index.js";

export type RecallGateHidden = { total: number; archived: number; superseded: number; expired: number; scheduled: number };

/**
 * Counts, among a page fetched with the gate lifted, the records the real
 * gate hid. Only conditions this request gated are counted; a record in
 * several states counts in each, once in total.
 */
export function countHidden(lifted: readonly MemoryRecord[], q: RecordQuery): RecallGateHidden {
  const out: RecallGateHidden = { total: 0, archived: 0, superseded: 0, expired: 0, scheduled: 0 };
  const gate = q.gate;
  if (!gate) return out;
  for (const r of lifted) {
    const expired = r.not_after !== undefined && r.not_after <= q.now;
    const scheduled = !expired && r.not_before !== undefined && r.not_before > q.now;
    const hits = {
      archived: !gate.archived && !!r.archived_at,
      superseded: !gate.superseded && !!r.superseded_by,
      expired: !gate.scheduled && expired,
      scheduled: !gate.scheduled && scheduled,
    };
    let any = false;
    for (const k of ["archived", "superseded", "expired", "scheduled"] as const) {
      if (hits[k]) {
        out[k]++;
        any = true;
      }
    }
    if (any) out.total++;
  }
  return out;
}
