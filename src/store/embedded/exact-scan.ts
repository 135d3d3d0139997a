/**
 * Exact nearest-neighbour primitives over a contiguous Float32Array slab.
 *
 * Every score the vector index hands out comes from `dotAt`, whichever path
 * found the candidate, so an HNSW hit and a brute-force hit for the same
 * record always carry the very same number.
 */

/** A search result: the record key and its cosine similarity to the query. */
export type VectorHit = { key: number; score: number };

/**
 * Dot product of `q` with the `dim`-long row of `slab` that starts at `offset`.
 * The query is float64 because V8 then widens only one operand per term,
 * which measurably speeds up the scan; stored rows stay float32 for memory.
 */
export function dotAt(slab: Float32Array, offset: number, q: Float64Array, dim: number): number {
  // Independent accumulators let V8 overlap the multiply-adds instead of
  // serialising on one running sum.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const end = dim - (dim & 3);
  let i = 0;
  for (; i < end; i += 4) {
    const o = offset + i;
    s0 += slab[o]! * q[i]!;
    s1 += slab[o + 1]! * q[i + 1]!;
    s2 += slab[o + 2]! * q[i + 2]!;
    s3 += slab[o + 3]! * q[i + 3]!;
  }
  for (; i < dim; i++) s0 += slab[offset + i]! * q[i]!;
  return s0 + s1 + s2 + s3;
}

/**
 * Keeps the best `k` (key, score) pairs seen so far: highest score first,
 * equal scores resolved by the smaller key, so results never depend on the
 * order candidates were offered in.
 */
export class TopK {
  readonly #k: number;
  readonly #keys: Float64Array;
  readonly #scores: Float64Array;
  #n = 0;

  constructor(k: number) {
    this.#k = k;
    this.#keys = new Float64Array(k);
    this.#scores = new Float64Array(k);
  }

  get length(): number {
    return this.#n;
  }

  /**
   * Scores strictly below this can never enter; lets a scan skip the heap
   * for the overwhelming majority of candidates once it is full.
   */
  get floor(): number {
    return this.#n < this.#k ? -Infinity : this.#scores[0]!;
  }

  /** Whether `offer(key, score)` would keep the pair: lets a caller skip costly checks for pairs that cannot enter. */
  wouldTake(key: number, score: number): boolean {
    if (this.#k === 0) return false;
    if (this.#n < this.#k) return true;
    const rootScore = this.#scores[0]!;
    return score > rootScore || (score === rootScore && key < this.#keys[0]!);
  }

  offer(key: number, score: number): void {
    if (this.#k === 0) return;
    if (this.#n < this.#k) {
      this.#keys[this.#n] = key;
      this.#scores[this.#n] = score;
      this.#siftUp(this.#n++);
      return;
    }
    // The root is the worst kept entry; only something strictly better displaces it.
    const rootScore = this.#scores[0]!;
    if (score < rootScore || (score === rootScore && key >= this.#keys[0]!)) return;
    this.#keys[0] = key;
    this.#scores[0] = score;
    this.#siftDown(0);
  }

  /** Empties the collector and returns its contents best first. */
  drain(): VectorHit[] {
    const out: VectorHit[] = new Array<VectorHit>(this.#n);
    for (let i = this.#n - 1; i >= 0; i--) {
      out[i] = { key: this.#keys[0]!, score: this.#scores[0]! };
      this.#n--;
      if (this.#n > 0) {
        this.#keys[0] = this.#keys[this.#n]!;
        this.#scores[0] = this.#scores[this.#n]!;
        this.#siftDown(0);
      }
    }
    return out;
  }

  // Heap order is "worst at the root": lower score, or equal score and larger key.
  #worse(a: number, b: number): boolean {
    const sa = this.#scores[a]!;
    const sb = this.#scores[b]!;
    return sa < sb || (sa === sb && this.#keys[a]! > this.#keys[b]!);
  }

  #swap(a: number, b: number): void {
    const k = this.#keys[a]!;
    this.#keys[a] = this.#keys[b]!;
    this.#keys[b] = k;
    const s = this.#scores[a]!;
    this.#scores[a] = this.#scores[b]!;
    this.#scores[b] = s;
  }

  #siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#worse(i, parent)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #siftDown(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.#n) return;
      const r = l + 1;
      const worst = r < this.#n && this.#worse(r, l) ? r : l;
      if (!this.#worse(worst, i)) return;
      this.#swap(i, worst);
      i = worst;
    }
  }
}

/**
 * Scores `count` slots listed in `slots` (rows of `slab`) against `q`, keeping
 * the best `k`. `keyOf` maps a slot to its record key; `allow`, when given,
 * sees record keys and drops the ones it rejects before any arithmetic.
 */
export function scanSlots(
  slab: Float32Array,
  dim: number,
  q: Float64Array,
  slots: Int32Array,
  count: number,
  keyOf: Float64Array,
  k: number,
  allow?: (key: number) => boolean,
): VectorHit[] {
  const top = new TopK(k);
  for (let i = 0; i < count; i++) {
    const slot = slots[i]!;
    const key = keyOf[slot]!;
    if (allow !== undefined && !allow(key)) continue;
    const score = dotAt(slab, slot * dim, q, dim);
    if (score >= top.floor) top.offer(key, score);
  }
  return top.drain();
}

/**
 * Scores every live slot below `highWater` (a negative key marks a free slot)
 * against `q`, keeping the best `k` among those `allow` admits.
 */
export function scanAll(
  slab: Float32Array,
  dim: number,
  q: Float64Array,
  highWater: number,
  keyOf: Float64Array,
  k: number,
  allow?: (key: number) => boolean,
): VectorHit[] {
  const top = new TopK(k);
  for (let slot = 0; slot < highWater; slot++) {
    const key = keyOf[slot]!;
    if (key < 0) continue;
    if (allow !== undefined && !allow(key)) continue;
    const score = dotAt(slab, slot * dim, q, dim);
    if (score >= top.floor) top.offer(key, score);
  }
  return top.drain();
}
