import { deepFreeze } from "../../model/deep-freeze.js";
import type { MemoryRecord } from "../../model/record.js";
import { decodeRecord } from "../codec.js";

/**
 * Records a search decoded, by rid, kept beside the mirror and dropped with
 * a record's attributes, exactly as the payload cache is (mirror.ts): an
 * entry is never older than the mirror, which a search catches up first.
 * A candidate found here is neither read from SQLite nor parsed again, and
 * comes back as the same frozen object, so the core's memo of its terms
 * holds. Reading and decoding a search's couple of hundred candidate rows
 * was a third of the store's part of a search. Bounded; past the bound the
 * oldest eighth goes.
 */
export const DECODED_MAX_ENTRIES = 16_384;

export class DecodedRows {
  private readonly rows = new Map<number, MemoryRecord>();

  constructor(private readonly max = DECODED_MAX_ENTRIES) {}

  get size(): number {
    return this.rows.size;
  }

  get(rid: number): MemoryRecord | undefined {
    return this.rows.get(rid);
  }

  /** Decodes a payload just read, keeps the record and hands it out, frozen. */
  set(rid: number, payload: string): MemoryRecord {
    const record = deepFreeze(decodeRecord(payload));
    this.rows.delete(rid);
    this.rows.set(rid, record);
    if (this.rows.size > this.max) {
      let drop = Math.floor(this.max / 8);
      for (const key of this.rows.keys()) {
        if (drop-- <= 0) break;
        this.rows.delete(key);
      }
    }
    return record;
  }

  delete(rid: number): void {
    this.rows.delete(rid);
  }

  clear(): void {
    this.rows.clear();
  }
}
