/** How a SizedCache lets entries go; the defaults suit a cache filled faster than it is read again. */
export type SizedCacheOptions = {
  /** A read keeps an entry longest (the least recently read goes first); by default the oldest written goes first. */
  byRead?: boolean;
  /** A value over this part of the size bound is not kept: it would push out many small ones. Default 16. */
  largestPart?: number;
  /** Past a bound, let go just enough to fit, instead of the oldest eighth at once (the default). */
  justEnough?: boolean;
};

/**
 * A cache bounded by entries and by a size its caller gives each value (the
 * characters of the text it came from). Past either bound the oldest eighth
 * goes at once by default, so a full cache sweeps once per eighth of its
 * entries instead of deleting on every insert; a cache read far more often
 * than written can ask to let go just enough, and to count reads as recent.
 */
export class SizedCache<K, V> {
  private readonly entries = new Map<K, { value: V; size: number }>();
  private total = 0;
  private readonly byRead: boolean;
  private readonly largest: number;
  private readonly justEnough: boolean;

  constructor(
    private readonly maxEntries: number,
    private readonly maxSize: number,
    options: SizedCacheOptions = {},
  ) {
    this.byRead = options.byRead ?? false;
    this.largest = maxSize / (options.largestPart ?? 16);
    this.justEnough = options.justEnough ?? false;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether a value is held, without counting as a read. */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (e !== undefined && this.byRead) {
      // Map order is insertion order: moving the hit to the end keeps it last to go.
      this.entries.delete(key);
      this.entries.set(key, e);
    }
    return e?.value;
  }

  set(key: K, value: V, size: number): void {
    this.delete(key);
    if (size > this.largest) return;
    this.entries.set(key, { value, size });
    this.total += size;
    if (this.entries.size <= this.maxEntries && this.total <= this.maxSize) return;
    let drop = this.justEnough ? 0 : Math.max(1, Math.floor(this.entries.size / 8));
    for (const [k, e] of this.entries) {
      if (drop-- <= 0 && this.entries.size <= this.maxEntries && this.total <= this.maxSize) break;
      this.entries.delete(k);
      this.total -= e.size;
    }
  }

  delete(key: K): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.total -= e.size;
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}
