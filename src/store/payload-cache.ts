/**
 * Payload texts of recently read records, by rid, least recently used
 * dropped first once either bound is passed. The store drops a rid whenever
 * its mirror learns the row changed (the same change-log pass that updates
 * the attributes), so an entry is never older than the mirror, and empties
 * it whenever another connection has committed (a sweep's quiet writes are
 * not in the change log); a point read checks SQLite's data_version before
 * trusting an entry. Texts, not decoded
 * records: every read decodes its own copy, so no caller can change what the
 * next one sees.
 */
export const PAYLOAD_CACHE_MAX_ENTRIES = 4096;
/** UTF-16 code units, about twice as many bytes of heap. */
export const PAYLOAD_CACHE_MAX_CHARS = 4 * 1024 * 1024;

export class PayloadCache {
  private readonly texts = new Map<number, string>();
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

  set(rid: number, text: string): void {
    // A text bigger than a quarter of the budget would push out many small ones for one read.
    if (text.length > this.maxChars / 4) return;
    this.delete(rid);
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
    this.chars -= text.length;
  }

  clear(): void {
    this.texts.clear();
    this.chars = 0;
  }
}
