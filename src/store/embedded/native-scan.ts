import { dotAt, scanAll, scanSlots, TopK, type VectorHit } from "./exact-scan.js";
import { usearch, type Matches } from "./vector/usearch.js";
import type { VectorSlots } from "./vector/vector-slots.js";

// Unfiltered scans from this many slots go to usearch's native exact search.
const NATIVE_SCAN_FROM = 16_384;
// Filtered scans of this many rows or more copy them out and scan natively:
// the copy plus the SIMD scan costs about a fifth of a JS dot product per row.
const NATIVE_SUBSET_FROM = 384;
// Extra rows a native scan hands back, rescored here so its rounding cannot
// decide what makes the top k.
const NATIVE_MARGIN = 8;

/** Exact scans of a vector index's rows: large ones through usearch's SIMD exact search, small ones in JS. */
export class NativeScan {
  /** Rows copied out for a native scan of a subset; reused between searches. */
  #gather = new Float32Array(0);

  constructor(private readonly slots: VectorSlots) {}

  /**
   * Every live row scored exactly. Large slabs go through usearch's SIMD
   * scan first, asking for enough extra rows to cover freed slots (whose
   * stale rows it cannot tell apart), then the winners are rescored here so
   * the scores match every other path bit for bit.
   */
  everything(q: Float64Array, k: number): VectorHit[] {
    const { slab, dim, slotKey } = this.slots;
    const hw = this.slots.highWater;
    const fetch = k + this.slots.free.length + NATIVE_MARGIN;
    if (hw < NATIVE_SCAN_FROM || fetch * 4 > hw) return scanAll(slab, dim, q, hw, slotKey, k);
    const found = usearch.exactSearch(slab.subarray(0, hw * dim), Float32Array.from(q), dim, fetch, usearch.MetricKind.IP, 1) as Matches;
    return this.#rescore(q, k, found, (slot) => slot) ?? scanAll(slab, dim, q, hw, slotKey, k);
  }

  /**
   * The exact top k among `count` listed slots (those `allow` admits). Many
   * rows are copied into one buffer for usearch's SIMD scan, whose winners
   * (plus a margin) are rescored from the slab; few rows, or a native answer
   * too close to call at the k-th place, are scanned in JS.
   */
  subset(q: Float64Array, k: number, slots: Int32Array, count: number, allow?: (key: number) => boolean): VectorHit[] {
    const slotKey = this.slots.slotKey;
    let rows = slots;
    let n = count;
    if (allow !== undefined && count >= NATIVE_SUBSET_FROM) {
      rows = new Int32Array(count);
      n = 0;
      for (let i = 0; i < count; i++) if (allow(slotKey[slots[i]!]!)) rows[n++] = slots[i]!;
      allow = undefined;
    }
    if (n < NATIVE_SUBSET_FROM || k + NATIVE_MARGIN >= n) return scanSlots(this.slots.slab, this.slots.dim, q, rows, n, slotKey, k, allow);
    const dim = this.slots.dim;
    if (this.#gather.length < n * dim) this.#gather = new Float32Array(Math.ceil(n * 1.25) * dim);
    const buf = this.#gather;
    const slab = this.slots.slab;
    for (let i = 0; i < n; i++) {
      const offset = rows[i]! * dim;
      buf.set(slab.subarray(offset, offset + dim), i * dim);
    }
    const fetch = k + NATIVE_MARGIN;
    const found = usearch.exactSearch(buf.subarray(0, n * dim), Float32Array.from(q), dim, fetch, usearch.MetricKind.IP, 1) as Matches;
    return this.#rescore(q, k, found, (i) => rows[i]!) ?? scanSlots(slab, dim, q, rows, n, slotKey, k);
  }

  /**
   * Exact scores for a native scan's winners (`slotAt` maps a result row to
   * its slot). Undefined when the scan returned fewer than it was asked
   * for, or its cut-off lies within rounding of the k-th exact score.
   */
  #rescore(q: Float64Array, k: number, found: Matches, slotAt: (row: number) => number): VectorHit[] | undefined {
    const { slab, dim, slotKey } = this.slots;
    const top = new TopK(k);
    let cutoff = Infinity;
    let live = 0;
    for (let i = 0; i < found.keys.length; i++) {
      const slot = slotAt(Number(found.keys[i]!));
      cutoff = Math.min(cutoff, 1 - found.distances[i]!);
      const key = slotKey[slot]!;
      if (key < 0) continue;
      live++;
      top.offer(key, dotAt(slab, slot * dim, q, dim));
    }
    if (live < k) return undefined;
    const hits = top.drain();
    return hits[hits.length - 1]!.score - cutoff < 1e-5 ? undefined : hits;
  }
}
