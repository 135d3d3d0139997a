import { decodeRecord } from "../codec.js";
import { deepFreeze } from "../../model/deep-freeze.js";
import type { MemoryRecord } from "../../model/record.js";

/**
 * Payload texts of recently read records, by rid, least recently used
 * dropped first once either bound is passed, each with the record decoded
 * from it once it is first read. The store drops a rid whenever its mirror
 * learns the row changed (the same change-log pass that updates the
 * attributes), so an entry is never older than the mirror, and empties it
 * whenever another connection has committed (a sweep's quiet writes are not
 * in the change log); a point read checks SQLite's data_version before
 * trusting an entry. The decoded record is frozen all the way down and
 * handed to every reader as it is: none can change what the next one sees,
 * and a read pays no JSON.parse (about 0.01 of a point read's ratio to a
 * no-op over Connect, in 4 alternating pairs with and without).
 */
export const PAYLOAD_CACHE_MAX_ENTRIES = 4096;
/** UTF-16 code units of text, about twice as many bytes of heap, and as much again for the decoded records. */
export const PAYLOAD_CACHE_MAX_CHARS = 4 * 1024 * 1024;

export class PayloadCache {
  private readonly texts = new Map<number, string>();
  private readonly records = new Map<number, MemoryRecord>();
  private chars = 0;

  constructor(
    private readonly maxEntries = PAYLOAD_CACHE_MAX_ENTRIES,
    private readonly maxChars = PAYLOAD_CACHE_MAX_CHARS,
  ) {}

  get size(): number {
    return this.texts.size;
  }

  /** Whether a text is held, without counting as a read. */
  has(rid: number): boolean {
    return this.texts.has(rid);
  }

  get(rid: number): string | undefined {
    const text = this.texts.get(rid);
    if (text !== undefined) {
      // Map order is insertion order: moving the hit to the end keeps it last to go.
      this.texts.delete(rid);
      this.texts.set(rid, text);
    }
    return text;
  }

  /** The record a held text decodes to, frozen, decoded on its first read; counts as a read. */
  record(rid: number): MemoryRecord | undefined {
    const text = this.get(rid);
    if (text === undefined) return undefined;
    let rec = this.records.get(rid);
    if (rec === undefined) {
      rec = deepFreeze(decodeRecord(text));
      this.records.set(rid, rec);
    }
    return rec;
  }

  set(rid: number, text: string): void {
    // A text bigger than a quarter of the budget would push out many small ones for one read.
    this.delete(rid);
    if (text.length > this.maxChars / 4) return;
    this.texts.set(rid, text);
    this.chars += text.length;
    while (this.texts.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.texts.keys().next().value as number;
      this.delete(oldest);
    }
  }

  delete(rid: number): void {
    const text = this.texts.get(rid);
    if (text === undefined) return;
    this.texts.delete(rid);
    this.records.delete(rid);
    this.chars -= text.length;
  }

  clear(): void {
    this.texts.clear();
    this.records.clear();
    this.chars = 0;
  }
}
