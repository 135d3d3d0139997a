import { dotAt, TopK, type VectorHit } from "../exact-scan.js";
import { usearch, type Matches } from "./usearch.js";
import { FETCH_GROWTH } from "./vector-options.js";
import type { VectorSlots } from "./vector-slots.js";

// A group search scans its int8 block for this many rows beyond k (at
// least twice k) and rescores them exactly; int8 rounding only reorders
// near-ties, which the margin absorbs.
const GROUP_MARGIN = 32;
// int8 rows are unit rows times this, rounded.
const INT8_SCALE = 127;

/**
 * One group's members: `rows` holds their int8 rows back to back, `slots`
 * the slot each row was copied from. Removal moves the last row into the
 * hole, so the block stays dense.
 */
export type Group = { name: string; rows: Int8Array; slots: Int32Array; count: number };

/**
 * The named groups of a vector index (the store's scopes). Each group keeps
 * a contiguous int8 copy of its members' rows, so a search confined to one
 * large group scans just that block natively instead of walking the whole
 * graph for the few neighbours that happen to be members. Groups are
 * derived state: never saved, reassigned after a load.
 */
export class VectorGroups {
  #groups = new Map<string, Group>();
  /** Per slot: its group, or undefined. */
  #slotGroup: (Group | undefined)[] = [];
  /** Per slot: its row in its group's block; grown to the slots' capacity when a slot beyond it joins a group. */
  #slotRow: Int32Array = new Int32Array(0);

  constructor(private readonly slots: VectorSlots) {}

  get(name: string): Group | undefined {
    return this.#groups.get(name);
  }

  /** The group `slot` is in, if any. */
  nameOf(slot: number): string | undefined {
    return this.#slotGroup[slot]?.name;
  }

  /** How many slots `name` holds. */
  size(name: string): number {
    return this.#groups.get(name)?.count ?? 0;
  }

  /** Puts `slot` in `group` (undefined: in none), leaving any group it was in. */
  set(slot: number, group: string | undefined): void {
    const current = this.#slotGroup[slot];
    if (current?.name === group) return;
    this.leave(slot);
    if (group === undefined) return;
    const dim = this.slots.dim;
    let g = this.#groups.get(group);
    if (g === undefined) this.#groups.set(group, (g = { name: group, rows: new Int8Array(0), slots: new Int32Array(0), count: 0 }));
    if (g.count === g.slots.length) {
      const capacity = Math.max(16, Math.ceil(g.count * 1.5));
      const rows = new Int8Array(capacity * dim);
      rows.set(g.rows);
      const slots = new Int32Array(capacity);
      slots.set(g.slots);
      g.rows = rows;
      g.slots = slots;
    }
    if (slot >= this.#slotRow.length) {
      const slotRow = new Int32Array(this.slots.capacity);
      slotRow.set(this.#slotRow);
      this.#slotRow = slotRow;
    }
    const row = g.count++;
    g.slots[row] = slot;
    this.#slotGroup[slot] = g;
    this.#slotRow[slot] = row;
    this.#quantiseInto(g, row, slot);
  }

  /** After the slot's row changed: its group's copy follows. */
  requantise(slot: number): void {
    const group = this.#slotGroup[slot];
    if (group !== undefined) this.#quantiseInto(group, this.#slotRow[slot]!, slot);
  }

  leave(slot: number): void {
    const group = this.#slotGroup[slot];
    if (group === undefined) return;
    const row = this.#slotRow[slot]!;
    const last = --group.count;
    if (row !== last) {
      const dim = this.slots.dim;
      const moved = group.slots[last]!;
      group.rows.copyWithin(row * dim, last * dim, (last + 1) * dim);
      group.slots[row] = moved;
      this.#slotRow[moved] = row;
    }
    this.#slotGroup[slot] = undefined;
    if (group.count === 0) this.#groups.delete(group.name);
  }

  /**
   * The top k of one group's admitted members: usearch's SIMD scan over the
   * group's int8 block picks k plus a margin (at least 2k) rows, which are
   * rescored exactly from the slab; while fewer than k of them are
   * admitted, the scan asks for FETCH_GROWTH times more, up to the whole
   * group (then every member is rescored, and the answer is exact).
   */
  search(q: Float64Array, k: number, group: Group, accept: (key: number) => boolean): VectorHit[] {
    const dim = this.slots.dim;
    const n = group.count;
    const point = new Int8Array(dim);
    for (let i = 0; i < dim; i++) point[i] = Math.round(q[i]! * INT8_SCALE);
    const block = group.rows.subarray(0, n * dim);
    let fetch = Math.min(n, Math.max(2 * k, k + GROUP_MARGIN));
    for (;;) {
      const found = usearch.exactSearch(block, point, dim, fetch, usearch.MetricKind.IP, 1) as Matches;
      const top = new TopK(k);
      let admitted = 0;
      for (let i = 0; i < found.keys.length; i++) {
        const slot = group.slots[Number(found.keys[i]!)]!;
        const key = this.slots.slotKey[slot]!;
        if (!accept(key)) continue;
        admitted++;
        const score = dotAt(this.slots.slab, slot * dim, q, dim);
        if (score >= top.floor) top.offer(key, score);
      }
      if (admitted >= k || fetch >= n) return top.drain();
      fetch = Math.min(n, fetch * FETCH_GROWTH);
    }
  }

  /** Writes slot `slot`'s row, rounded to int8, as row `row` of `group`'s block. */
  #quantiseInto(group: Group, row: number, slot: number): void {
    const dim = this.slots.dim;
    const src = slot * dim;
    const dst = row * dim;
    const slab = this.slots.slab;
    const rows = group.rows;
    for (let i = 0; i < dim; i++) rows[dst + i] = Math.round(slab[src + i]! * INT8_SCALE);
  }
}
