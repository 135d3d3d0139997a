import { deepFreeze } from "../../model/deep-freeze.js";
import type { MemoryRecord } from "../../model/record.js";
import { SizedCache } from "../../model/sized-cache.js";
import { decodeRecord } from "../codec.js";

/**
 * Records a search decoded, by rid, kept beside the mirror and dropped with
 * a record's attributes, exactly as the payload cache is (mirror.ts): an
 * entry is never older than the mirror, which a search catches up first.
 * A candidate found here is neither read from SQLite nor parsed again, and
 * comes back as the same frozen object, so the core's memo of its terms
 * holds. Reading and decoding a search's couple of hundred candidate rows
 * was a third of the store's part of a search. Bounded by entries and by
 * the characters of the payloads they came from: 64 KiB records would
 * otherwise hold a gigabyte.
 */
export const DECODED_MAX_ENTRIES = 16_384;
export const DECODED_MAX_CHARS = 16 * 1024 * 1024;

export class DecodedRows extends SizedCache<number, MemoryRecord> {
  constructor(maxEntries = DECODED_MAX_ENTRIES, maxChars = DECODED_MAX_CHARS) {
    super(maxEntries, maxChars);
  }

  /** Decodes a payload just read, keeps the record (unless it alone is over a sixteenth of the bound) and hands it out, frozen. */
  keep(rid: number, payload: string): MemoryRecord {
    const record = deepFreeze(decodeRecord(payload));
    this.set(rid, record, payload.length);
    return record;
  }
}
