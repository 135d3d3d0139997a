import { decodeRecord } from "../codec.js";
import { deepFreeze } from "../../model/deep-freeze.js";
import type { MemoryRecord } from "../../model/record.js";
import { SizedCache } from "../../model/sized-cache.js";

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

/** A held text and, once first read as a record, the record it decodes to. */
type Held = { text: string; record?: MemoryRecord };

export class PayloadCache {
  // Read far more often than written: the least recently read goes first, just
  // enough to fit, and a text over a quarter of the budget is not kept (it
  // would push out many small ones for one read).
  private readonly held: SizedCache<number, Held>;

  constructor(maxEntries = PAYLOAD_CACHE_MAX_ENTRIES, maxChars = PAYLOAD_CACHE_MAX_CHARS) {
    this.held = new SizedCache(maxEntries, maxChars, { byRead: true, largestPart: 4, justEnough: true });
  }

  get size(): number {
    return this.held.size;
  }

  /** Whether a text is held, without counting as a read. */
  has(rid: number): boolean {
    return this.held.has(rid);
  }

  get(rid: number): string | undefined {
    return this.held.get(rid)?.text;
  }

  /** The record a held text decodes to, frozen, decoded on its first read; counts as a read. */
  record(rid: number): MemoryRecord | undefined {
    const held = this.held.get(rid);
    if (held === undefined) return undefined;
    held.record ??= deepFreeze(decodeRecord(held.text));
    return held.record;
  }

  set(rid: number, text: string): void {
    this.held.set(rid, { text }, text.length);
  }

  delete(rid: number): void {
    this.held.delete(rid);
  }

  clear(): void {
    this.held.clear();
  }
}
