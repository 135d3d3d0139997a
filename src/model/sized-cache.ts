/**
 * A cache bounded by entries and by a size its caller gives each value (the
 * characters of the text it came from), oldest first out. Past either bound
 * the oldest eighth goes at once, so a full cache sweeps once per eighth of
 * its entries instead of deleting on every insert. A value over a sixteenth
 * of the size bound is not kept: it would push out many small ones.
 */
export class SizedCache<K, V> {
  private readonly entries = new Map<K, { value: V; size: number }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxSize: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  set(key: K, value: V, size: number): void {
    this.delete(key);
    if (size > this.maxSize / 16) return;
    this.entries.set(key, { value, size });
    this.total += size;
    if (this.entries.size <= this.maxEntries && this.total <= this.maxSize) return;
    let drop = Math.max(1, Math.floor(this.entries.size / 8));
    for (const [k, e] of this.entries) {
      if (drop-- <= 0 && this.total <= this.maxSize) break;
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
