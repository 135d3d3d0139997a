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
 * was a third of the store's part of a search. Bounded by entries and by
 * the characters of the payloads they came from (64 KiB records would
 * otherwise hold a gigabyte); past either, the oldest eighth goes.
 */
export const DECODED_MAX_ENTRIES = 16_384;
export const DECODED_MAX_CHARS = 16 * 1024 * 1024;

export class DecodedRows {
  private readonly rows = new Map<number, { record: MemoryRecord; chars: number }>();
  private chars = 0;

  constructor(
    private readonly maxEntries = DECODED_MAX_ENTRIES,
    private readonly maxChars = DECODED_MAX_CHARS,
  ) {}

  get size(): number {
    return this.rows.size;
  }

  get(rid: number): MemoryRecord | undefined {
    return this.rows.get(rid)?.record;
  }

  /** Decodes a payload just read, keeps the record (unless it alone is over a sixteenth of the bound) and hands it out, frozen. */
  set(rid: number, payload: string): MemoryRecord {
    const record = deepFreeze(decodeRecord(payload));
    this.delete(rid);
    if (payload.length > this.maxChars / 16) return record;
    this.rows.set(rid, { record, chars: payload.length });
    this.chars += payload.length;
    if (this.rows.size > this.maxEntries || this.chars > this.maxChars) {
      let drop = Math.max(1, Math.floor(this.rows.size / 8));
      for (const [key, row] of this.rows) {
        if (drop-- <= 0 && this.chars <= this.maxChars) break;
        this.rows.delete(key);
        this.chars -= row.chars;
      }
    }
    return record;
  }

  delete(rid: number): void {
    const row = this.rows.get(rid);
    if (row === undefined) return;
    this.rows.delete(rid);
    this.chars -= row.chars;
  }

  clear(): void {
    this.rows.clear();
    this.chars = 0;
  }
}
