import { deepFreeze } from "../../model/deep-freeze.js";
import type { MemoryRecord } from "../../model/record.js";
import { decodeRecord } from "../codec.js";

/**
 * Records decoded for searches, by rid, each with the payload text it was
 * decoded from: a record that comes back as a candidate of a later search
 * with the very same payload is handed out as the same frozen object, with
 * no JSON.parse and nothing new for the collector, and the core's per-object
 * memo of its terms holds. A changed payload is decoded afresh, so nothing
 * here can be staler than the row just read. Bounded; past the bound the
 * oldest eighth goes.
 */
export const DECODED_MAX_ENTRIES = 16_384;

export class DecodedRows {
  private readonly rows = new Map<number, { payload: string; record: MemoryRecord }>();

  constructor(private readonly max = DECODED_MAX_ENTRIES) {}

  get size(): number {
    return this.rows.size;
  }

  record(rid: number, payload: string): MemoryRecord {
    const kept = this.rows.get(rid);
    if (kept !== undefined && kept.payload === payload) return kept.record;
    const record = deepFreeze(decodeRecord(payload));
    if (kept !== undefined) this.rows.delete(rid);
    this.rows.set(rid, { payload, record });
    if (this.rows.size > this.max) {
      let drop = Math.floor(this.max / 8);
      for (const key of this.rows.keys()) {
        if (drop-- <= 0) break;
        this.rows.delete(key);
      }
    }
    return record;
  }
}
