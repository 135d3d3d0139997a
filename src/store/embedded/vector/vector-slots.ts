/**
 * The rows of a vector index: records live in dense "slots" of one float32
 * slab; the slot number is the graph key, and a removed record's slot is
 * handed to the next insert. The graph, the groups and the scans all read
 * these arrays in place, so they are open to them.
 */
export const INITIAL_SLOTS = 1024;

export class VectorSlots {
  readonly dim: number;
  capacity = 0;
  /** Row `s` holds the unit vector of slot `s`. */
  slab: Float32Array;
  /** Record key stored in each slot; -1 marks a free slot. */
  slotKey: Float64Array;
  readonly slotOf = new Map<number, number>();
  free: number[] = [];
  /** Slots at or beyond this have never been used. */
  highWater = 0;

  constructor(dim: number) {
    this.dim = dim;
    this.slab = new Float32Array(0);
    this.slotKey = new Float64Array(0);
    this.grow(INITIAL_SLOTS);
  }

  grow(minSlots: number): void {
    // 1.5x rather than 2x: at 100k x 512 floats every spare slot is 2 KiB.
    const capacity = Math.max(minSlots, Math.ceil(this.capacity * 1.5), INITIAL_SLOTS);
    const slab = new Float32Array(capacity * this.dim);
    slab.set(this.slab.subarray(0, this.highWater * this.dim));
    const slotKey = new Float64Array(capacity).fill(-1);
    slotKey.set(this.slotKey.subarray(0, this.highWater));
    this.slab = slab;
    this.slotKey = slotKey;
    this.capacity = capacity;
  }

  normalise(vector: ArrayLike<number>, what: string): Float64Array {
    if (vector.length !== this.dim) {
      throw new RangeError(`${what} has ${vector.length} dimensions, index has ${this.dim}`);
    }
    let norm = 0;
    for (let i = 0; i < this.dim; i++) norm += vector[i]! * vector[i]!;
    norm = Math.sqrt(norm);
    if (!Number.isFinite(norm) || norm === 0) throw new RangeError(`${what} must be finite and non-zero`);
    const out = new Float64Array(this.dim);
    for (let i = 0; i < this.dim; i++) out[i] = vector[i]! / norm;
    return out;
  }
}
