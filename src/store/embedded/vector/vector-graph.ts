import { availableParallelism } from "node:os";
import { dotAt, TopK, type VectorHit } from "../exact-scan.js";
import { usearch, type Graph } from "./usearch.js";
import { FETCH_GROWTH, type ResolvedOptions } from "./vector-options.js";
import type { VectorSlots } from "./vector-slots.js";

// A filtered walk asks for this many times the neighbours the admitted
// fraction suggests, then grows by FETCH_GROWTH while it comes up short.
const FETCH_MARGIN = 1.5;
// Beyond this many neighbours per walk an exact scan of the admitted rows is
// the cheaper way to a complete answer.
const MAX_FETCH = 8192;
// Rows per usearch add call while building: small enough that one slice
// blocks the event loop for only a few milliseconds.
const BUILD_SLICE = 64;
// usearch's refusal of a walk when every search context is taken.
const NO_CONTEXT = /reserve capacity ahead of searches/i;

/**
 * The usearch HNSW graph over a vector index's slots (prebuilt N-API
 * binary, nothing compiled at install), holding int8-quantised copies of
 * the rows. It may be built all at once or a slice at a time; `cursor`
 * says how far: slots below it have been offered to the graph.
 */
export class VectorGraph {
  #graph: Graph | undefined;
  /** Slots below this have been offered to the graph; it is complete when this reaches highWater. */
  cursor = 0;

  constructor(
    private readonly slots: VectorSlots,
    private readonly opts: ResolvedOptions,
  ) {}

  get started(): boolean {
    return this.#graph !== undefined;
  }

  complete(): boolean {
    return this.#graph !== undefined && this.cursor >= this.slots.highWater;
  }

  has(slot: number): boolean {
    return this.#graph !== undefined && slot < this.cursor;
  }

  /** Adds up to `maxSlots` more slots, starting the graph if needed; true once it is complete. */
  step(maxSlots: number): boolean {
    if (this.#graph === undefined) {
      this.#graph = this.#newGraph();
      this.cursor = 0;
    }
    const end = Math.min(this.slots.highWater, this.cursor + Math.max(1, maxSlots));
    this.#addRange(this.cursor, end);
    this.cursor = end;
    return this.complete();
  }

  build(): void {
    this.#graph = this.#newGraph();
    this.cursor = 0;
    try {
      this.#addRange(0, this.slots.highWater);
      this.cursor = this.slots.highWater;
    } catch (error) {
      // A half-built graph would silently miss records; keep scanning instead.
      this.#graph = undefined;
      this.cursor = 0;
      throw error;
    }
  }

  put(slot: number): void {
    const { slab, dim } = this.slots;
    this.#graph!.add(BigInt(slot), slab.subarray(slot * dim, (slot + 1) * dim), 1);
  }

  remove(slot: number): void {
    this.#graph!.remove(BigInt(slot));
  }

  save(path: string): void {
    this.#graph!.save(path);
  }

  /**
   * Takes the graph saved at `path`; false when usearch refuses it or it does
   * not match the slots. usearch is not safe on a damaged file (it can die
   * in native code): the caller checks the file first (checkGraph).
   */
  load(path: string): boolean {
    const graph = this.#newGraph();
    try {
      graph.load(path);
    } catch {
      return false;
    }
    if (graph.dimensions() !== this.slots.dim || graph.size() !== this.slots.slotOf.size) return false;
    this.#graph = graph;
    this.cursor = this.slots.highWater;
    this.#walkThreads = Math.max(1, availableParallelism());
    return true;
  }

  /**
   * HNSW k-NN over the quantised graph, rescored exactly from the slab. A
   * filtered walk (`accept`, admitting about `fraction` of the records)
   * fetches enough neighbours to expect k admitted ones and widens while it
   * falls short. Returns undefined when it still has fewer than k, so the
   * caller can fall back to a scan.
   */
  search(q: Float64Array, k: number, fraction: number, accept?: (slot: number) => boolean): VectorHit[] | undefined {
    const graph = this.#graph!;
    const total = graph.size();
    const point = Float32Array.from(q);
    // Unfiltered, at least efSearch neighbours buy back what int8 loses; a
    // filtered walk already fetches many times k.
    let fetch = Math.min(
      total,
      accept === undefined ? Math.max(this.opts.efSearch, k) : Math.ceil((k / Math.max(fraction, 1e-6)) * FETCH_MARGIN),
    );
    for (;;) {
      if (fetch > MAX_FETCH && fetch < total) return undefined;
      const found = graph.search(point, fetch, 1).keys;
      const top = new TopK(k);
      let admitted = 0;
      for (let i = 0; i < found.length; i++) {
        const slot = Number(found[i]!);
        const key = this.slots.slotKey[slot]!;
        if (key < 0) return undefined; // cannot happen while removals are mirrored; never trust it blindly
        if (accept !== undefined && !accept(slot)) continue;
        admitted++;
        const score = dotAt(this.slots.slab, slot * this.slots.dim, q, this.slots.dim);
        if (score >= top.floor) top.offer(key, score);
      }
      if (admitted >= k) return top.drain();
      if (fetch >= total) return undefined;
      fetch = Math.min(total, fetch * FETCH_GROWTH);
    }
  }

  /**
   * Several unfiltered walks in one native call: for each query, up to
   * `fetch` graph keys (slots), nearest first by the int8 copies; the caller
   * rescores and filters them. The walks are spread over the machine's
   * cores, as many as the graph has search contexts: a graph loaded from a
   * snapshot has one per core, one built here a slot at a time has one, and
   * usearch refuses a walk it has no context for, so such a graph walks on
   * one thread from then on. Only an operator sweep asks this (never a
   * request), so taking every core for the call starves nothing.
   */
  searchMany(qs: readonly Float32Array[], fetch: number): { slots: BigUint64Array; counts: BigUint64Array; k: number } {
    const limit = Math.min(fetch, this.#graph!.size());
    let found: { keys: BigUint64Array; counts?: BigUint64Array; k?: number };
    try {
      found = this.#graph!.search([...qs], limit, this.#walkThreads) as unknown as typeof found;
    } catch (error) {
      if (this.#walkThreads === 1 || !NO_CONTEXT.test(String((error as Error).message))) throw error;
      this.#walkThreads = 1;
      found = this.#graph!.search([...qs], limit, 1) as unknown as typeof found;
    }
    // One query comes back as plain Matches, without counts.
    if (found.counts === undefined) return { slots: found.keys, counts: BigUint64Array.of(BigInt(found.keys.length)), k: limit };
    return { slots: found.keys, counts: found.counts, k: found.k ?? limit };
  }

  #walkThreads = Math.max(1, availableParallelism());

  #newGraph(): Graph {
    return new usearch.Index({
      dimensions: this.slots.dim,
      metric: usearch.MetricKind.IP,
      quantization: usearch.ScalarKind.I8,
      connectivity: this.opts.m,
      expansion_add: this.opts.efConstruction,
      expansion_search: this.opts.efSearch,
      multi: false,
    });
  }

  /** Adds the live slots in [from, to) to the graph, a slice of contiguous rows per native call. */
  #addRange(from: number, to: number): void {
    const graph = this.#graph!;
    const { slotKey, slab, dim } = this.slots;
    let start = from;
    while (start < to) {
      while (start < to && slotKey[start]! < 0) start++;
      let end = start;
      while (end < to && end - start < BUILD_SLICE && slotKey[end]! >= 0) end++;
      if (end === start) break;
      const keys = new BigUint64Array(end - start);
      for (let s = start; s < end; s++) keys[s - start] = BigInt(s);
      graph.add(keys, slab.subarray(start * dim, end * dim), 1);
      start = end;
    }
  }
}
