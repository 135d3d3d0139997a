/**
 * In-process k-nearest-neighbour index over unit-normalised embeddings,
 * scored by cosine similarity.
 *
 * Two engines answer queries:
 *  - an exact scan over a contiguous Float32Array slab, used while the index
 *    is small and whenever a filter leaves few enough candidates that
 *    scanning them is cheaper than walking a graph;
 *  - a usearch HNSW graph (prebuilt N-API binary, nothing compiled at
 *    install) holding int8-quantised copies of the rows, built once the index
 *    reaches `hnswThreshold`, used for large unfiltered or weakly filtered
 *    searches. usearch has no filtered search, so a filtered walk asks for
 *    more neighbours than it needs and drops what the filter rejects, and
 *    falls back to an exact scan when that does not yield enough.
 *
 * Whatever engine finds a candidate, its score is recomputed from the
 * float32 slab, so results carry exact cosines and the graph's quantisation
 * only decides which rows are looked at, never what they score.
 *
 * Records live in dense "slots" (vector-slots.ts); the slot number is the
 * graph key (vector-graph.ts), and a removed record's slot is handed to the
 * next insert.
 *
 * A record may also belong to one named group (the store's scope). Each
 * group keeps a contiguous int8 copy of its members' rows (vector-groups.ts),
 * so a search confined to one large group scans just that block natively
 * instead of walking the whole graph for the few neighbours that happen to
 * be members. Groups are derived state: never saved, reassigned after a load.
 */
import { join } from "node:path";
import { dotAt, scanAll, TopK, type VectorHit } from "../exact-scan.js";
import { NativeScan } from "../native-scan.js";
import { probeShare, type ShareCell } from "./share-probe.js";
import { VectorGraph } from "./vector-graph.js";
import { VectorGroups } from "./vector-groups.js";
import { resolveOptions, snapshotOptions, type ResolvedOptions, type VectorIndexMode, type VectorIndexOptions } from "./vector-options.js";
import { VectorSlots } from "./vector-slots.js";
import { MANIFEST, readManifest, removeStaleFiles, setAside, writeSnapshot, type FaultReport, type Manifest, type SnapshotFault, type SnapshotOrigin } from "./vector-snapshot.js";
import { checkGraph, checkGraphInSlices, fault as snapshotFault, readVectors, readVectorsInSlices } from "./vector-snapshot-read.js";

export type { VectorHit } from "../exact-scan.js";
export type { ShareCell } from "./share-probe.js";
export type { VectorIndexMode, VectorIndexOptions } from "./vector-options.js";
export type { FaultReport, SnapshotFault, SnapshotOrigin } from "./vector-snapshot.js";

export type VectorFilter = {
  /**
   * Admits a record key. Called synchronously during `search`; it must not
   * modify the index.
   */
  allow?: (key: number) => boolean;
  /**
   * The only keys that may be returned, when the caller already knows them
   * (e.g. every record in one scope). Unknown keys and duplicates are
   * ignored. Combined with `allow` when both are given.
   */
  candidates?: Iterable<number>;
  /**
   * The group every admitted key belongs to, when the caller knows it (a
   * one-scope search). Only a hint: keys outside the group are still
   * rejected by `candidates` and `allow`, and a caller may give it only
   * while every admitted key's group is current.
   */
  group?: string;
  /**
   * Where the share of records `allow` admits is kept from one search to
   * the next of the same filter: read instead of probing when set, set when
   * probed. The caller empties it when what the filter admits may have
   * changed. The share only sizes a graph walk, so a stale one costs time,
   * never a hit the filter refuses, nor fewer than k.
   */
  shareCell?: ShareCell;
};

const BUDGET_REFERENCE_SIZE = 100_000;

export class VectorIndex {
  readonly #opts: ResolvedOptions;
  readonly #stepwise: boolean;
  readonly #slots: VectorSlots;
  readonly #graph: VectorGraph;
  readonly #groups: VectorGroups;
  readonly #scan: NativeScan;
  #origin: SnapshotOrigin = {};

  constructor(dim: number, opts: VectorIndexOptions = {}, mode: VectorIndexMode = {}) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`vector dimension must be a positive integer, got ${dim}`);
    this.#opts = resolveOptions(opts);
    this.#stepwise = mode.graphBuild === "stepwise";
    this.#slots = new VectorSlots(dim);
    this.#graph = new VectorGraph(this.#slots, this.#opts);
    this.#groups = new VectorGroups(this.#slots);
    this.#scan = new NativeScan(this.#slots);
  }

  get dim(): number {
    return this.#slots.dim;
  }

  get size(): number {
    return this.#slots.slotOf.size;
  }

  /** What the snapshot this index was loaded from said about its data ({} when built fresh). */
  get origin(): SnapshotOrigin {
    return this.#origin;
  }

  has(key: number): boolean {
    return this.#slots.slotOf.has(key);
  }

  /** Every key in the index, e.g. to reconcile a loaded index with its source of truth. */
  keys(): IterableIterator<number> {
    return this.#slots.slotOf.keys();
  }

  /** True while the index is large enough for a graph but the graph is not complete (searches scan exactly). */
  get graphPending(): boolean {
    return this.size >= this.#opts.hnswThreshold && !this.#graph.complete();
  }

  /**
   * Adds up to `maxSlots` more slots to the graph, starting it if needed.
   * Returns true once the graph is complete (or not needed yet).
   */
  buildGraphStep(maxSlots: number): boolean {
    if (!this.graphPending) return true;
    return this.#graph.step(maxSlots);
  }

  /** Inserts `key` or replaces its vector. The vector is normalised; it must be non-zero and finite. */
  upsert(key: number, vector: ArrayLike<number>): void {
    checkKey(key);
    const slots = this.#slots;
    const unit = slots.normalise(vector, "vector");
    const dim = slots.dim;
    const existing = slots.slotOf.get(key);
    if (existing !== undefined) {
      const offset = existing * dim;
      if (sameRow(slots.slab, offset, unit)) return; // re-supplied unchanged: spare the graph repair
      slots.slab.set(unit, offset);
      this.#groups.requantise(existing);
      if (this.#graph.has(existing)) {
        this.#graph.remove(existing);
        this.#graph.put(existing);
      }
      return;
    }
    const wasComplete = this.#graph.complete();
    let slot = slots.free.pop();
    if (slot === undefined) {
      if (slots.highWater === slots.capacity) slots.grow(slots.highWater + 1);
      slot = slots.highWater++;
    }
    slots.slab.set(unit, slot * dim);
    slots.slotKey[slot] = key;
    slots.slotOf.set(key, slot);
    if (this.#graph.started) {
      // Below the cursor the graph must hear of it now; past the cursor of a
      // graph still being built, the cursor reaches it in due course.
      if (slot < this.#graph.cursor) this.#graph.put(slot);
      else if (wasComplete) {
        this.#graph.put(slot);
        this.#graph.cursor = slots.highWater;
      }
    } else if (!this.#stepwise && slots.slotOf.size >= this.#opts.hnswThreshold) {
      this.#graph.build();
    }
  }

  /** Removes `key`; returns whether it was present. */
  remove(key: number): boolean {
    const slots = this.#slots;
    const slot = slots.slotOf.get(key);
    if (slot === undefined) return false;
    if (this.#graph.has(slot)) this.#graph.remove(slot);
    this.#groups.leave(slot);
    slots.slotOf.delete(key);
    slots.slotKey[slot] = -1;
    slots.free.push(slot);
    return true;
  }

  /** A copy of the unit row stored for `key`, or undefined when the index does not hold it. */
  rowOf(key: number): Float32Array | undefined {
    const slot = this.#slots.slotOf.get(key);
    if (slot === undefined) return undefined;
    const dim = this.#slots.dim;
    return this.#slots.slab.slice(slot * dim, (slot + 1) * dim);
  }

  /**
   * The `k` nearest admitted records to each of several stored records, by
   * their own rows, the record itself never among them: what `search` gives
   * per row, but with the graph walks of a large index made in one native
   * call (near-duplicate sweeps ask this for every record). A row whose walk comes up short of k admitted neighbours, and
   * every row while the graph is not in use, is searched on its own.
   */
  nearestMany(keys: readonly number[], k: number, admitted: ReadonlySet<number>): Map<number, VectorHit[]> {
    const out = new Map<number, VectorHit[]>();
    const rows = keys.filter((key) => this.#slots.slotOf.has(key));
    const alone = (key: number) => out.set(key, this.search(this.rowOf(key)!, k, { candidates: admitted, allow: (other) => other !== key }));
    if (k <= 0 || rows.length === 0) return out;
    if (!this.#graphUsable() || admitted.size <= this.#exactBudget(k) || k + 1 >= admitted.size) {
      for (const key of rows) alone(key);
      return out;
    }
    const slots = this.#slots;
    const dim = slots.dim;
    const fetch = Math.ceil(((k + 1) / (admitted.size / this.size)) * 1.5);
    const found = this.#graph.searchMany(
      rows.map((key) => this.rowOf(key)!),
      fetch,
    );
    rows.forEach((key, i) => {
      const own = slots.slotOf.get(key)! * dim;
      const q = Float64Array.from(slots.slab.subarray(own, own + dim));
      const top = new TopK(k);
      let taken = 0;
      const n = Number(found.counts[i]!);
      for (let j = 0; j < n; j++) {
        const slot = Number(found.slots[i * found.k + j]!);
        const other = slots.slotKey[slot]!;
        if (other < 0 || other === key || !admitted.has(other)) continue;
        taken++;
        const score = dotAt(slots.slab, slot * dim, q, dim);
        if (score >= top.floor) top.offer(other, score);
      }
      if (taken >= k) out.set(key, top.drain());
      else alone(key);
    });
    return out;
  }

  /**
   * Exact scores of the listed keys against `query`, the same numbers a
   * search would hand out for them; keys not in the index are skipped.
   */
  scoreKeys(query: ArrayLike<number>, keys: readonly number[]): VectorHit[] {
    const slots = this.#slots;
    const q = slots.normalise(query, "query");
    const hits: VectorHit[] = [];
    for (const key of keys) {
      const slot = slots.slotOf.get(key);
      if (slot !== undefined) hits.push({ key, score: dotAt(slots.slab, slot * slots.dim, q, slots.dim) });
    }
    return hits;
  }

  /**
   * Puts `key` in `group` (undefined: in none), leaving any group it was in.
   * A key not in the index is ignored. Removing the key drops it from its
   * group; a re-upsert keeps it there.
   */
  setGroup(key: number, group: string | undefined): void {
    const slot = this.#slots.slotOf.get(key);
    if (slot === undefined) return;
    this.#groups.set(slot, group);
  }

  /** The group `key` is in, if any. */
  groupOf(key: number): string | undefined {
    const slot = this.#slots.slotOf.get(key);
    return slot === undefined ? undefined : this.#groups.nameOf(slot);
  }

  /** How many keys `group` holds. */
  groupSize(group: string): number {
    return this.#groups.size(group);
  }

  /**
   * The `k` records most similar to `query` (exact cosine scores, best first,
   * equal scores by ascending key) among those the filter admits.
   *
   * Exact whenever the index is below `hnswThreshold`, the graph is still
   * being built, or the admitted set is small; approximate (HNSW) otherwise.
   * Never returns fewer than min(k, admitted records): a short graph answer
   * is redone exactly.
   */
  search(query: ArrayLike<number>, k: number, filter: VectorFilter = {}): VectorHit[] {
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
    const q = this.#slots.normalise(query, "query");
    if (k === 0 || this.size === 0) return [];
    const { allow, candidates } = filter;
    if (candidates !== undefined) return this.#searchCandidates(q, k, candidates, allow, filter.group);
    // A walk asks for at least efSearch neighbours; once k nears the record
    // count, a plain scan is cheaper.
    if (!this.#graphUsable() || k * 8 >= this.size) {
      const s = this.#slots;
      return allow === undefined ? this.#scan.everything(q, k) : scanAll(s.slab, s.dim, q, s.highWater, s.slotKey, k, allow);
    }
    if (allow === undefined) return this.#graph.search(q, k, 1) ?? this.#scan.everything(q, k);
    return this.#searchAllowed(q, k, allow, filter.shareCell);
  }

  /**
   * Persists the index under `dir` (see vector-snapshot.ts) so the graph
   * need not be rebuilt on the next start; `origin` is kept with it (see
   * `origin`).
   */
  save(dir: string, origin: SnapshotOrigin = {}): void {
    const graph = this.#graph.complete() ? (path: string) => this.#graph.save(path) : undefined;
    const files = writeSnapshot(dir, this.#slots, this.size, this.#opts, origin, graph);
    this.#origin = origin;
    removeStaleFiles(dir, files);
  }

  /**
   * Reads an index saved by `save`. Returns undefined when there is nothing
   * usable under `dir` (missing, other dimension or format, a file failing
   * its check): the caller then rebuilds from its records, and `report`
   * hears why. Every file is checked against the length and checksum the
   * manifest records before anything reads it (usearch dies in native code
   * on a damaged graph); a damaged snapshot is set aside (setAside). A loaded
   * index reflects the moment of the save (`origin`); records written since
   * must be re-applied by the caller.
   *
   * `opts` may change the query-time settings (efSearch, thresholds); the
   * graph's m and efConstruction stay as saved.
   */
  static load(dir: string, dim: number, opts: VectorIndexOptions = {}, mode: VectorIndexMode = {}, report: FaultReport = () => {}): VectorIndex | undefined {
    const opened = VectorIndex.#opened(dir, dim, opts, mode, report);
    if (opened === undefined) return undefined;
    const { index, manifest } = opened;
    return index.#settle(dir, manifest, readVectors(dir, manifest, index.#slots) ?? checkGraph(dir, manifest), report);
  }

  /**
   * `load` for a start that keeps answering meanwhile: the vectors are read
   * and the graph file checked a slice at a time, `between` running after
   * each; false from it gives up, and the answer is undefined. The graph
   * file is then loaded by one native call.
   */
  static async loadInSlices(
    dir: string,
    dim: number,
    opts: VectorIndexOptions,
    mode: VectorIndexMode,
    between: () => Promise<boolean>,
    sliceBytes?: number,
    report: FaultReport = () => {},
  ): Promise<VectorIndex | undefined> {
    const opened = VectorIndex.#opened(dir, dim, opts, mode, report);
    if (opened === undefined) return undefined;
    const { index, manifest } = opened;
    const read = await readVectorsInSlices(dir, manifest, index.#slots, between, sliceBytes);
    return index.#settle(dir, manifest, read ?? (await checkGraphInSlices(dir, manifest, between, sliceBytes)), report);
  }

  /** An empty index with the snapshot's settings under `dir`, or undefined (reported) when there is none this build reads. */
  static #opened(dir: string, dim: number, opts: VectorIndexOptions, mode: VectorIndexMode, report: FaultReport): { index: VectorIndex; manifest: Manifest } | undefined {
    resolveOptions(opts); // a bad argument is the caller's bug, not an unusable snapshot
    const read = readManifest(dir, dim);
    const options = read.manifest === undefined ? undefined : snapshotOptions(read.manifest.options, opts);
    if (read.manifest !== undefined && options !== undefined) return { index: new VectorIndex(dim, options, mode), manifest: read.manifest };
    const fault = read.fault ?? { reason: "manifest names settings this version refuses", damaged: [MANIFEST] };
    setAside(dir, fault);
    report(fault);
    return undefined;
  }

  /** The index once its files have passed their checks (`checked` undefined), or undefined with the fault reported and the snapshot set aside. */
  #settle(dir: string, manifest: Manifest, checked: SnapshotFault | "stopped" | undefined, report: FaultReport): VectorIndex | undefined {
    const fault = checked ?? this.#loaded(dir, manifest);
    if (fault === undefined) return this;
    if (fault !== "stopped") {
      setAside(dir, fault);
      report(fault);
    }
    return undefined;
  }

  /** Takes the rest of a checked snapshot: the origin, and the graph (loaded, or built unless stepwise). */
  #loaded(dir: string, manifest: Manifest): SnapshotFault | undefined {
    if (this.size !== manifest.live) return snapshotFault("vectors", "content", manifest.vectorsFile);
    this.#origin = typeof manifest.origin === "object" && manifest.origin !== null ? manifest.origin : {};
    if (manifest.graphFile !== null) {
      if (!this.#graph.load(join(dir, manifest.graphFile))) return snapshotFault("graph", "match", manifest.graphFile);
    } else if (!this.#stepwise && this.size >= this.#opts.hnswThreshold) {
      this.#graph.build();
    }
    return undefined;
  }

  // ---- search paths -------------------------------------------------------

  #graphUsable(): boolean {
    return this.#graph.complete() && this.size >= this.#opts.hnswThreshold;
  }

  /**
   * Admitted-record count below which an exact scan beats a filtered graph
   * walk. A scan costs one JS dot product per admitted record (a records);
   * a walk admitting a fraction p = a/n must fetch about ef/p neighbours
   * before it has ef admitted results. Equal costs give a^2 proportional to
   * ef * n; the constant comes from `exactBudget`, the break-even at
   * ef = efSearch over BUDGET_REFERENCE_SIZE records.
   */
  #exactBudget(k: number): number {
    const ef = Math.max(this.#opts.efSearch, k);
    return this.#opts.exactBudget * Math.sqrt((ef / this.#opts.efSearch) * (this.size / BUDGET_REFERENCE_SIZE));
  }

  #searchCandidates(
    q: Float64Array,
    k: number,
    candidates: Iterable<number>,
    allow: ((key: number) => boolean) | undefined,
    groupName: string | undefined,
  ): VectorHit[] {
    // A large set can go to the graph without listing it: membership is
    // asked only of the neighbours the walk fetches.
    if (candidates instanceof Set && candidates.size > this.#exactBudget(k) && k < candidates.size && this.#graphUsable()) {
      const set = candidates as ReadonlySet<number>;
      // Where the graph would be walked, the group's own block is scanned
      // instead when it is large enough that the graph would have been used.
      const group = groupName === undefined ? undefined : this.#groups.get(groupName);
      if (group !== undefined && group.count > this.#exactBudget(k) && k < group.count) {
        return this.#groups.search(q, k, group, allow === undefined ? (key) => set.has(key) : (key) => set.has(key) && allow(key));
      }
      const slotKey = this.#slots.slotKey;
      const accept =
        allow === undefined ? (slot: number) => set.has(slotKey[slot]!) : (slot: number) => set.has(slotKey[slot]!) && allow(slotKey[slot]!);
      const hits = this.#graph.search(q, k, set.size / this.size, accept);
      if (hits !== undefined) return hits;
    }
    const marks = new Uint8Array(this.#slots.highWater);
    let slots = new Int32Array(Math.min(this.size, 1024));
    let count = 0;
    for (const key of candidates) {
      const slot = this.#slots.slotOf.get(key);
      if (slot === undefined || marks[slot] === 1) continue;
      marks[slot] = 1;
      if (count === slots.length) {
        const bigger = new Int32Array(Math.min(this.size, slots.length * 2));
        bigger.set(slots);
        slots = bigger;
      }
      slots[count++] = slot;
    }
    if (count === 0) return [];
    if (count > this.#exactBudget(k) && k < count && this.#graphUsable()) {
      const slotKey = this.#slots.slotKey;
      const accept =
        allow === undefined
          ? (slot: number) => marks[slot] === 1
          : (slot: number) => marks[slot] === 1 && allow(slotKey[slot]!);
      const hits = this.#graph.search(q, k, count / this.size, accept);
      if (hits !== undefined) return hits;
    }
    return this.#scan.subset(q, k, slots, count, allow);
  }

  #searchAllowed(q: Float64Array, k: number, allow: (key: number) => boolean, cell: ShareCell | undefined): VectorHit[] {
    const slotKey = this.#slots.slotKey;
    // A callback that admits most records is cheapest to hand straight to
    // the graph walk, which consults it only for the neighbours it fetches.
    const share = cell?.share ?? probeShare(slotKey, this.#slots.highWater, allow);
    if (cell !== undefined) cell.share = share;
    if (share * this.size > this.#exactBudget(k)) {
      const hits = this.#graph.search(q, k, share, (slot) => allow(slotKey[slot]!));
      return hits ?? scanAll(this.#slots.slab, this.#slots.dim, q, this.#slots.highWater, slotKey, k, allow);
    }

    // Possibly selective: ask the callback about every record once (plain
    // JS, far cheaper than a dot product each) and choose with the exact
    // count in hand.
    const marks = new Uint8Array(this.#slots.highWater);
    const slots = new Int32Array(this.size);
    let count = 0;
    for (let slot = 0; slot < this.#slots.highWater; slot++) {
      const key = slotKey[slot]!;
      if (key < 0 || !allow(key)) continue;
      marks[slot] = 1;
      slots[count++] = slot;
    }
    if (count > this.#exactBudget(k) && k < count) {
      const hits = this.#graph.search(q, k, count / this.size, (slot) => marks[slot] === 1);
      if (hits !== undefined) return hits;
    }
    return this.#scan.subset(q, k, slots, count);
  }
}

function checkKey(key: number): void {
  if (!Number.isSafeInteger(key) || key < 0) throw new RangeError(`vector key must be a non-negative integer, got ${key}`);
}

function sameRow(slab: Float32Array, offset: number, row: Float64Array): boolean {
  for (let i = 0; i < row.length; i++) if (slab[offset + i] !== Math.fround(row[i]!)) return false;
  return true;
}
