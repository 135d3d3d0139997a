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
 * Records live in dense "slots"; the slot number is the graph key, and a
 * removed record's slot is handed to the next insert.
 *
 * A record may also belong to one named group (the store's scope). Each
 * group keeps a contiguous int8 copy of its members' rows, so a search
 * confined to one large group scans just that block natively instead of
 * walking the whole graph for the few neighbours that happen to be members.
 * Groups are derived state: never saved, reassigned after a load.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { endianness } from "node:os";
import { join } from "node:path";
import type * as Usearch from "usearch";
import { dotAt, scanAll, scanSlots, TopK, type VectorHit } from "./exact-scan.js";

export type { VectorHit } from "./exact-scan.js";

// usearch's ESM entry recurses forever looking for its build directory on
// Node 20; its CommonJS entry resolves the prebuilt binary correctly.
const usearch = createRequire(import.meta.url)("usearch") as typeof Usearch;
type Graph = Usearch.Index;

export type VectorIndexOptions = {
  /** Live-record count from which the HNSW graph is built and used (default 4096). */
  hnswThreshold?: number;
  /** HNSW out-degree (default 16). Fixed once the graph exists. */
  m?: number;
  /** HNSW build-time beam width (default 64). Fixed once the graph exists. */
  efConstruction?: number;
  /**
   * Fewest neighbours a graph walk asks for (default 64): asking for more
   * than k and rescoring exactly is what buys back the recall the int8
   * copies in the graph lose.
   */
  efSearch?: number;
  /**
   * Most admitted records a filtered search with k <= efSearch over 100,000
   * records scores exactly instead of walking the graph (default 6000);
   * scaled for other k and sizes, see `#exactBudget`.
   */
  exactBudget?: number;
};

export type VectorIndexMode = {
  /**
   * "inline" (default) builds the graph inside the upsert that reaches the
   * threshold; "stepwise" leaves it to `buildGraphStep`, so a server can
   * build it in slices between requests while exact scans answer.
   */
  graphBuild?: "inline" | "stepwise";
};

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
};

/**
 * One group's members: `rows` holds their int8 rows back to back, `slots`
 * the slot each row was copied from. Removal moves the last row into the
 * hole, so the block stays dense.
 */
type Group = { name: string; rows: Int8Array; slots: Int32Array; count: number };

/** What a snapshot says about the data it was taken from; opaque to the index. */
export type SnapshotOrigin = Record<string, string | number>;

type Resolved = Required<VectorIndexOptions>;

const DEFAULTS: Resolved = {
  hnswThreshold: 4096,
  m: 16,
  efConstruction: 64,
  efSearch: 64,
  exactBudget: 6000,
};

const INITIAL_SLOTS = 1024;
const BUDGET_REFERENCE_SIZE = 100_000;
// Evenly spaced probes used to guess how selective an `allow` callback is.
const SELECTIVITY_PROBES = 512;
const GOLDEN = 0.6180339887498949;
// A filtered walk asks for this many times the neighbours the admitted
// fraction suggests, then grows by FETCH_GROWTH while it comes up short.
const FETCH_MARGIN = 1.5;
const FETCH_GROWTH = 4;
// Beyond this many neighbours per walk an exact scan of the admitted rows is
// the cheaper way to a complete answer.
const MAX_FETCH = 8192;
// Unfiltered scans from this many slots go to usearch's native exact search.
const NATIVE_SCAN_FROM = 16_384;
// Filtered scans of this many rows or more copy them out and scan natively:
// the copy plus the SIMD scan costs about a fifth of a JS dot product per row.
const NATIVE_SUBSET_FROM = 384;
// Extra rows a native scan hands back, rescored here so its rounding cannot
// decide what makes the top k.
const NATIVE_MARGIN = 8;
// A group search scans its int8 block for this many rows beyond k (at
// least twice k) and rescores them exactly; int8 rounding only reorders
// near-ties, which the margin absorbs.
const GROUP_MARGIN = 32;
// int8 rows are unit rows times this, rounded.
const INT8_SCALE = 127;
// Rows per usearch add call while building: small enough that one slice
// blocks the event loop for only a few milliseconds.
const BUILD_SLICE = 64;

const MANIFEST = "manifest.json";
const FORMAT = "engram-vector-index";
// 2: the graph file is usearch's (int8), no longer hnswlib's.
const FORMAT_VERSION = 2;

type Manifest = {
  format: string;
  version: number;
  endianness: string;
  dim: number;
  highWater: number;
  live: number;
  vectorsFile: string;
  graphFile: string | null;
  options: Resolved;
  origin: SnapshotOrigin;
};

export class VectorIndex {
  readonly #dim: number;
  readonly #opts: Resolved;
  readonly #stepwise: boolean;
  #capacity = 0;
  /** Row `s` holds the unit vector of slot `s`. */
  #slab: Float32Array;
  /** Record key stored in each slot; -1 marks a free slot. */
  #slotKey: Float64Array;
  #slotOf = new Map<number, number>();
  #free: number[] = [];
  /** Slots at or beyond this have never been used. */
  #highWater = 0;
  #graph: Graph | undefined;
  /** Slots below this have been offered to the graph; it is complete when this reaches highWater. */
  #graphCursor = 0;
  #origin: SnapshotOrigin = {};
  /** Rows copied out for a native scan of a subset; reused between searches. */
  #gather = new Float32Array(0);
  #groups = new Map<string, Group>();
  /** Per slot: its group, or undefined. */
  #slotGroup: (Group | undefined)[] = [];
  /** Per slot: its row in its group's block. */
  #slotRow: Int32Array = new Int32Array(0);

  constructor(dim: number, opts: VectorIndexOptions = {}, mode: VectorIndexMode = {}) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`vector dimension must be a positive integer, got ${dim}`);
    this.#dim = dim;
    this.#opts = resolveOptions(opts);
    this.#stepwise = mode.graphBuild === "stepwise";
    this.#slab = new Float32Array(0);
    this.#slotKey = new Float64Array(0);
    this.#grow(INITIAL_SLOTS);
  }

  get dim(): number {
    return this.#dim;
  }

  get size(): number {
    return this.#slotOf.size;
  }

  /** What the snapshot this index was loaded from said about its data ({} when built fresh). */
  get origin(): SnapshotOrigin {
    return this.#origin;
  }

  has(key: number): boolean {
    return this.#slotOf.has(key);
  }

  /** Every key in the index, e.g. to reconcile a loaded index with its source of truth. */
  keys(): IterableIterator<number> {
    return this.#slotOf.keys();
  }

  /** True while the index is large enough for a graph but the graph is not complete (searches scan exactly). */
  get graphPending(): boolean {
    return this.size >= this.#opts.hnswThreshold && !this.#graphComplete();
  }

  /**
   * Adds up to `maxSlots` more slots to the graph, starting it if needed.
   * Returns true once the graph is complete (or not needed yet).
   */
  buildGraphStep(maxSlots: number): boolean {
    if (!this.graphPending) return true;
    if (this.#graph === undefined) {
      this.#graph = this.#newGraph();
      this.#graphCursor = 0;
    }
    const end = Math.min(this.#highWater, this.#graphCursor + Math.max(1, maxSlots));
    this.#graphAddRange(this.#graphCursor, end);
    this.#graphCursor = end;
    return this.#graphComplete();
  }

  /** Inserts `key` or replaces its vector. The vector is normalised; it must be non-zero and finite. */
  upsert(key: number, vector: ArrayLike<number>): void {
    checkKey(key);
    const unit = this.#normalise(vector, "vector");
    const dim = this.#dim;
    const existing = this.#slotOf.get(key);
    if (existing !== undefined) {
      const offset = existing * dim;
      if (sameRow(this.#slab, offset, unit)) return; // re-supplied unchanged: spare the graph repair
      this.#slab.set(unit, offset);
      const group = this.#slotGroup[existing];
      if (group !== undefined) this.#quantiseInto(group, this.#slotRow[existing]!, existing);
      if (this.#inGraph(existing)) {
        this.#graph!.remove(BigInt(existing));
        this.#graphPut(existing);
      }
      return;
    }
    const wasComplete = this.#graphComplete();
    let slot = this.#free.pop();
    if (slot === undefined) {
      if (this.#highWater === this.#capacity) this.#grow(this.#highWater + 1);
      slot = this.#highWater++;
    }
    this.#slab.set(unit, slot * dim);
    this.#slotKey[slot] = key;
    this.#slotOf.set(key, slot);
    if (this.#graph !== undefined) {
      // Below the cursor the graph must hear of it now; past the cursor of a
      // graph still being built, the cursor reaches it in due course.
      if (slot < this.#graphCursor) this.#graphPut(slot);
      else if (wasComplete) {
        this.#graphPut(slot);
        this.#graphCursor = this.#highWater;
      }
    } else if (!this.#stepwise && this.#slotOf.size >= this.#opts.hnswThreshold) {
      this.#buildGraph();
    }
  }

  /** Removes `key`; returns whether it was present. */
  remove(key: number): boolean {
    const slot = this.#slotOf.get(key);
    if (slot === undefined) return false;
    if (this.#inGraph(slot)) this.#graph!.remove(BigInt(slot));
    this.#leaveGroup(slot);
    this.#slotOf.delete(key);
    this.#slotKey[slot] = -1;
    this.#free.push(slot);
    return true;
  }

  /**
   * Exact scores of the listed keys against `query`, the same numbers a
   * search would hand out for them; keys not in the index are skipped.
   */
  scoreKeys(query: ArrayLike<number>, keys: readonly number[]): VectorHit[] {
    const q = this.#normalise(query, "query");
    const hits: VectorHit[] = [];
    for (const key of keys) {
      const slot = this.#slotOf.get(key);
      if (slot !== undefined) hits.push({ key, score: dotAt(this.#slab, slot * this.#dim, q, this.#dim) });
    }
    return hits;
  }

  /**
   * Puts `key` in `group` (undefined: in none), leaving any group it was in.
   * A key not in the index is ignored. Removing the key drops it from its
   * group; a re-upsert keeps it there.
   */
  setGroup(key: number, group: string | undefined): void {
    const slot = this.#slotOf.get(key);
    if (slot === undefined) return;
    const current = this.#slotGroup[slot];
    if (current?.name === group) return;
    this.#leaveGroup(slot);
    if (group === undefined) return;
    let g = this.#groups.get(group);
    if (g === undefined) this.#groups.set(group, (g = { name: group, rows: new Int8Array(0), slots: new Int32Array(0), count: 0 }));
    if (g.count === g.slots.length) {
      const capacity = Math.max(16, Math.ceil(g.count * 1.5));
      const rows = new Int8Array(capacity * this.#dim);
      rows.set(g.rows);
      const slots = new Int32Array(capacity);
      slots.set(g.slots);
      g.rows = rows;
      g.slots = slots;
    }
    const row = g.count++;
    g.slots[row] = slot;
    this.#slotGroup[slot] = g;
    this.#slotRow[slot] = row;
    this.#quantiseInto(g, row, slot);
  }

  /** The group `key` is in, if any. */
  groupOf(key: number): string | undefined {
    const slot = this.#slotOf.get(key);
    return slot === undefined ? undefined : this.#slotGroup[slot]?.name;
  }

  /** How many keys `group` holds. */
  groupSize(group: string): number {
    return this.#groups.get(group)?.count ?? 0;
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
    const q = this.#normalise(query, "query");
    if (k === 0 || this.size === 0) return [];
    const { allow, candidates } = filter;
    if (candidates !== undefined) return this.#searchCandidates(q, k, candidates, allow, filter.group);
    // A walk asks for at least efSearch neighbours; once k nears the record
    // count, a plain scan is cheaper.
    if (!this.#graphUsable() || k * 8 >= this.size) {
      return allow === undefined ? this.#scanEverything(q, k) : scanAll(this.#slab, this.#dim, q, this.#highWater, this.#slotKey, k, allow);
    }
    if (allow === undefined) return this.#graphSearch(q, k, 1) ?? this.#scanEverything(q, k);
    return this.#searchAllowed(q, k, allow);
  }

  /**
   * Persists the index under `dir` so the graph need not be rebuilt on the
   * next start; `origin` is kept with it (see `origin`). Layout:
   * `manifest.json` names a vectors file (slot keys as float64, then the slab
   * rows as float32, native byte order) and, once complete, a usearch graph
   * file. Data files are written under fresh names and the manifest is
   * swapped in last by rename, so a crash mid-save leaves the previous
   * snapshot loadable. Stale files are deleted afterwards.
   */
  save(dir: string, origin: SnapshotOrigin = {}): void {
    mkdirSync(dir, { recursive: true });
    const generation = `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
    const vectorsFile = `vectors-${generation}.bin`;
    const graphFile = this.#graphComplete() && this.#graph !== undefined ? `graph-${generation}.usearch` : null;

    const fd = openSync(join(dir, vectorsFile), "w");
    try {
      writeAll(fd, new Uint8Array(this.#slotKey.buffer, 0, this.#highWater * 8));
      writeAll(fd, new Uint8Array(this.#slab.buffer, 0, this.#highWater * this.#dim * 4));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (graphFile !== null) {
      this.#graph!.save(join(dir, graphFile));
      fsyncPath(join(dir, graphFile));
    }

    const manifest: Manifest = {
      format: FORMAT,
      version: FORMAT_VERSION,
      endianness: endianness(),
      dim: this.#dim,
      highWater: this.#highWater,
      live: this.size,
      vectorsFile,
      graphFile,
      options: this.#opts,
      origin,
    };
    const tmp = join(dir, `${MANIFEST}.${generation}.tmp`);
    writeFileSync(tmp, JSON.stringify(manifest));
    fsyncPath(tmp);
    renameSync(tmp, join(dir, MANIFEST));
    fsyncPath(dir);
    this.#origin = origin;

    for (const name of readdirSync(dir)) {
      const ours = /^(vectors|graph)-.*\.(bin|usearch)$/.test(name) || /^manifest\.json\..*\.tmp$/.test(name);
      if (ours && name !== vectorsFile && name !== graphFile) rmSync(join(dir, name), { force: true });
    }
  }

  /**
   * Reads an index saved by `save`. Returns undefined when there is nothing
   * usable under `dir` (missing, other dimension, other format, truncated or
   * unreadable files): the caller should then rebuild from its records. A
   * loaded index reflects the moment of the save, which `origin` describes;
   * records written since must be re-applied by the caller.
   *
   * `opts` may change the query-time settings (efSearch, thresholds); the
   * graph's m and efConstruction stay as saved.
   */
  static load(dir: string, dim: number, opts: VectorIndexOptions = {}, mode: VectorIndexMode = {}): VectorIndex | undefined {
    resolveOptions(opts); // a bad argument is the caller's bug, not an unusable snapshot
    let manifest: Manifest;
    try {
      manifest = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")) as Manifest;
    } catch {
      return undefined;
    }
    if (
      manifest.format !== FORMAT ||
      manifest.version !== FORMAT_VERSION ||
      manifest.endianness !== endianness() ||
      manifest.dim !== dim ||
      !Number.isInteger(manifest.highWater) ||
      manifest.highWater < 0
    ) {
      return undefined;
    }
    let index: VectorIndex;
    try {
      const saved = resolveOptions(manifest.options ?? {});
      const merged: Resolved = { ...saved };
      for (const name of ["hnswThreshold", "efSearch", "exactBudget"] as const) {
        const value = opts[name];
        if (value !== undefined) merged[name] = value;
      }
      index = new VectorIndex(dim, merged, mode);
    } catch {
      return undefined;
    }
    try {
      if (!index.#readVectors(join(dir, manifest.vectorsFile), manifest.highWater)) return undefined;
      if (index.size !== manifest.live) return undefined;
      index.#origin = typeof manifest.origin === "object" && manifest.origin !== null ? manifest.origin : {};
      if (manifest.graphFile !== null) {
        const graph = index.#newGraph();
        graph.load(join(dir, manifest.graphFile));
        if (graph.dimensions() !== dim || graph.size() !== index.size) return undefined;
        index.#graph = graph;
        index.#graphCursor = index.#highWater;
      } else if (!index.#stepwise && index.size >= index.#opts.hnswThreshold) {
        index.#buildGraph();
      }
    } catch {
      return undefined;
    }
    return index;
  }

  // ---- search paths -------------------------------------------------------

  #graphComplete(): boolean {
    return this.#graph !== undefined && this.#graphCursor >= this.#highWater;
  }

  #graphUsable(): boolean {
    return this.#graphComplete() && this.size >= this.#opts.hnswThreshold;
  }

  #inGraph(slot: number): boolean {
    return this.#graph !== undefined && slot < this.#graphCursor;
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
        return this.#groupSearch(q, k, group, allow === undefined ? (key) => set.has(key) : (key) => set.has(key) && allow(key));
      }
      const slotKey = this.#slotKey;
      const accept =
        allow === undefined ? (slot: number) => set.has(slotKey[slot]!) : (slot: number) => set.has(slotKey[slot]!) && allow(slotKey[slot]!);
      const hits = this.#graphSearch(q, k, set.size / this.size, accept);
      if (hits !== undefined) return hits;
    }
    const marks = new Uint8Array(this.#highWater);
    let slots = new Int32Array(Math.min(this.size, 1024));
    let count = 0;
    for (const key of candidates) {
      const slot = this.#slotOf.get(key);
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
      const slotKey = this.#slotKey;
      const accept =
        allow === undefined
          ? (slot: number) => marks[slot] === 1
          : (slot: number) => marks[slot] === 1 && allow(slotKey[slot]!);
      const hits = this.#graphSearch(q, k, count / this.size, accept);
      if (hits !== undefined) return hits;
    }
    return this.#scanSubset(q, k, slots, count, allow);
  }

  #searchAllowed(q: Float64Array, k: number, allow: (key: number) => boolean): VectorHit[] {
    const slotKey = this.#slotKey;
    // Probe a spread of live records: a callback that admits most of them is
    // cheapest to hand straight to the graph walk, which consults it only
    // for the neighbours it fetches.
    const probes = Math.min(SELECTIVITY_PROBES, this.#highWater);
    let seen = 0;
    let admitted = 0;
    for (let i = 0; i < probes; i++) {
      // Golden-ratio steps spread the probes without a period, so a filter
      // that admits every tenth slot is not sampled in lockstep with it.
      const key = slotKey[Math.floor(((i * GOLDEN) % 1) * this.#highWater)]!;
      if (key < 0) continue;
      seen++;
      if (allow(key)) admitted++;
    }
    // Go straight to the graph only if a pessimistic reading of the sample
    // (about two standard deviations low) still clears the budget.
    const fraction = seen === 0 ? 0 : Math.max(0, admitted - 2 * Math.sqrt(admitted)) / seen;
    if (fraction * this.size > this.#exactBudget(k)) {
      const hits = this.#graphSearch(q, k, fraction, (slot) => allow(slotKey[slot]!));
      return hits ?? scanAll(this.#slab, this.#dim, q, this.#highWater, slotKey, k, allow);
    }

    // Possibly selective: ask the callback about every record once (plain
    // JS, far cheaper than a dot product each) and choose with the exact
    // count in hand.
    const marks = new Uint8Array(this.#highWater);
    const slots = new Int32Array(this.size);
    let count = 0;
    for (let slot = 0; slot < this.#highWater; slot++) {
      const key = slotKey[slot]!;
      if (key < 0 || !allow(key)) continue;
      marks[slot] = 1;
      slots[count++] = slot;
    }
    if (count > this.#exactBudget(k) && k < count) {
      const hits = this.#graphSearch(q, k, count / this.size, (slot) => marks[slot] === 1);
      if (hits !== undefined) return hits;
    }
    return this.#scanSubset(q, k, slots, count);
  }

  /**
   * HNSW k-NN over the quantised graph, rescored exactly from the slab. A
   * filtered walk (`accept`, admitting about `fraction` of the records)
   * fetches enough neighbours to expect k admitted ones and widens while it
   * falls short. Returns undefined when it still has fewer than k, so the
   * caller can fall back to a scan.
   */
  #graphSearch(q: Float64Array, k: number, fraction: number, accept?: (slot: number) => boolean): VectorHit[] | undefined {
    const graph = this.#graph!;
    const total = graph.size();
    const point = Float32Array.from(q);
    // Unfiltered, at least efSearch neighbours buy back what int8 loses; a
    // filtered walk already fetches many times k.
    let fetch = Math.min(
      total,
      accept === undefined ? Math.max(this.#opts.efSearch, k) : Math.ceil((k / Math.max(fraction, 1e-6)) * FETCH_MARGIN),
    );
    for (;;) {
      if (fetch > MAX_FETCH && fetch < total) return undefined;
      const found = graph.search(point, fetch, 1).keys;
      const top = new TopK(k);
      let admitted = 0;
      for (let i = 0; i < found.length; i++) {
        const slot = Number(found[i]!);
        const key = this.#slotKey[slot]!;
        if (key < 0) return undefined; // cannot happen while removals are mirrored; never trust it blindly
        if (accept !== undefined && !accept(slot)) continue;
        admitted++;
        const score = dotAt(this.#slab, slot * this.#dim, q, this.#dim);
        if (score >= top.floor) top.offer(key, score);
      }
      if (admitted >= k) return top.drain();
      if (fetch >= total) return undefined;
      fetch = Math.min(total, fetch * FETCH_GROWTH);
    }
  }

  /**
   * The top k of one group's admitted members: usearch's SIMD scan over the
   * group's int8 block picks k plus a margin (at least 2k) rows, which are
   * rescored exactly from the slab; while fewer than k of them are
   * admitted, the scan asks for FETCH_GROWTH times more, up to the whole
   * group (then every member is rescored, and the answer is exact).
   */
  #groupSearch(q: Float64Array, k: number, group: Group, accept: (key: number) => boolean): VectorHit[] {
    const dim = this.#dim;
    const n = group.count;
    const point = new Int8Array(dim);
    for (let i = 0; i < dim; i++) point[i] = Math.round(q[i]! * INT8_SCALE);
    const block = group.rows.subarray(0, n * dim);
    let fetch = Math.min(n, Math.max(2 * k, k + GROUP_MARGIN));
    for (;;) {
      const found = usearch.exactSearch(block, point, dim, fetch, usearch.MetricKind.IP, 1) as Usearch.Matches;
      const top = new TopK(k);
      let admitted = 0;
      for (let i = 0; i < found.keys.length; i++) {
        const slot = group.slots[Number(found.keys[i]!)]!;
        const key = this.#slotKey[slot]!;
        if (!accept(key)) continue;
        admitted++;
        const score = dotAt(this.#slab, slot * dim, q, dim);
        if (score >= top.floor) top.offer(key, score);
      }
      if (admitted >= k || fetch >= n) return top.drain();
      fetch = Math.min(n, fetch * FETCH_GROWTH);
    }
  }

  /**
   * Every live row scored exactly. Large slabs go through usearch's SIMD
   * scan first, asking for enough extra rows to cover freed slots (whose
   * stale rows it cannot tell apart), then the winners are rescored here so
   * the scores match every other path bit for bit.
   */
  #scanEverything(q: Float64Array, k: number): VectorHit[] {
    const hw = this.#highWater;
    const fetch = k + this.#free.length + NATIVE_MARGIN;
    if (hw < NATIVE_SCAN_FROM || fetch * 4 > hw) return scanAll(this.#slab, this.#dim, q, hw, this.#slotKey, k);
    const found = usearch.exactSearch(this.#slab.subarray(0, hw * this.#dim), Float32Array.from(q), this.#dim, fetch, usearch.MetricKind.IP, 1) as Usearch.Matches;
    return this.#rescore(q, k, found, (slot) => slot) ?? scanAll(this.#slab, this.#dim, q, hw, this.#slotKey, k);
  }

  /**
   * The exact top k among `count` listed slots (those `allow` admits). Many
   * rows are copied into one buffer for usearch's SIMD scan, whose winners
   * (plus a margin) are rescored from the slab; few rows, or a native answer
   * too close to call at the k-th place, are scanned in JS.
   */
  #scanSubset(q: Float64Array, k: number, slots: Int32Array, count: number, allow?: (key: number) => boolean): VectorHit[] {
    const slotKey = this.#slotKey;
    let rows = slots;
    let n = count;
    if (allow !== undefined && count >= NATIVE_SUBSET_FROM) {
      rows = new Int32Array(count);
      n = 0;
      for (let i = 0; i < count; i++) if (allow(slotKey[slots[i]!]!)) rows[n++] = slots[i]!;
      allow = undefined;
    }
    if (n < NATIVE_SUBSET_FROM || k + NATIVE_MARGIN >= n) return scanSlots(this.#slab, this.#dim, q, rows, n, slotKey, k, allow);
    const dim = this.#dim;
    if (this.#gather.length < n * dim) this.#gather = new Float32Array(Math.ceil(n * 1.25) * dim);
    const buf = this.#gather;
    const slab = this.#slab;
    for (let i = 0; i < n; i++) {
      const offset = rows[i]! * dim;
      buf.set(slab.subarray(offset, offset + dim), i * dim);
    }
    const fetch = k + NATIVE_MARGIN;
    const found = usearch.exactSearch(buf.subarray(0, n * dim), Float32Array.from(q), dim, fetch, usearch.MetricKind.IP, 1) as Usearch.Matches;
    return this.#rescore(q, k, found, (i) => rows[i]!) ?? scanSlots(slab, dim, q, rows, n, slotKey, k);
  }

  /**
   * Exact scores for a native scan's winners (`slotAt` maps a result row to
   * its slot). Undefined when the scan returned fewer than it was asked
   * for, or its cut-off lies within rounding of the k-th exact score.
   */
  #rescore(q: Float64Array, k: number, found: Usearch.Matches, slotAt: (row: number) => number): VectorHit[] | undefined {
    const top = new TopK(k);
    let cutoff = Infinity;
    let live = 0;
    for (let i = 0; i < found.keys.length; i++) {
      const slot = slotAt(Number(found.keys[i]!));
      cutoff = Math.min(cutoff, 1 - found.distances[i]!);
      const key = this.#slotKey[slot]!;
      if (key < 0) continue;
      live++;
      top.offer(key, dotAt(this.#slab, slot * this.#dim, q, this.#dim));
    }
    if (live < k) return undefined;
    const hits = top.drain();
    return hits[hits.length - 1]!.score - cutoff < 1e-5 ? undefined : hits;
  }

  // ---- maintenance --------------------------------------------------------

  #newGraph(): Graph {
    return new usearch.Index({
      dimensions: this.#dim,
      metric: usearch.MetricKind.IP,
      quantization: usearch.ScalarKind.I8,
      connectivity: this.#opts.m,
      expansion_add: this.#opts.efConstruction,
      expansion_search: this.#opts.efSearch,
      multi: false,
    });
  }

  #buildGraph(): void {
    this.#graph = this.#newGraph();
    this.#graphCursor = 0;
    try {
      this.#graphAddRange(0, this.#highWater);
      this.#graphCursor = this.#highWater;
    } catch (error) {
      // A half-built graph would silently miss records; keep scanning instead.
      this.#graph = undefined;
      this.#graphCursor = 0;
      throw error;
    }
  }

  /** Adds the live slots in [from, to) to the graph, a slice of contiguous rows per native call. */
  #graphAddRange(from: number, to: number): void {
    const graph = this.#graph!;
    let start = from;
    while (start < to) {
      while (start < to && this.#slotKey[start]! < 0) start++;
      let end = start;
      while (end < to && end - start < BUILD_SLICE && this.#slotKey[end]! >= 0) end++;
      if (end === start) break;
      const keys = new BigUint64Array(end - start);
      for (let s = start; s < end; s++) keys[s - start] = BigInt(s);
      graph.add(keys, this.#slab.subarray(start * this.#dim, end * this.#dim), 1);
      start = end;
    }
  }

  /** Writes slot `slot`'s row, rounded to int8, as row `row` of `group`'s block. */
  #quantiseInto(group: Group, row: number, slot: number): void {
    const dim = this.#dim;
    const src = slot * dim;
    const dst = row * dim;
    const slab = this.#slab;
    const rows = group.rows;
    for (let i = 0; i < dim; i++) rows[dst + i] = Math.round(slab[src + i]! * INT8_SCALE);
  }

  #leaveGroup(slot: number): void {
    const group = this.#slotGroup[slot];
    if (group === undefined) return;
    const row = this.#slotRow[slot]!;
    const last = --group.count;
    if (row !== last) {
      const dim = this.#dim;
      const moved = group.slots[last]!;
      group.rows.copyWithin(row * dim, last * dim, (last + 1) * dim);
      group.slots[row] = moved;
      this.#slotRow[moved] = row;
    }
    this.#slotGroup[slot] = undefined;
    if (group.count === 0) this.#groups.delete(group.name);
  }

  #graphPut(slot: number): void {
    this.#graph!.add(BigInt(slot), this.#slab.subarray(slot * this.#dim, (slot + 1) * this.#dim), 1);
  }

  #grow(minSlots: number): void {
    // 1.5x rather than 2x: at 100k x 512 floats every spare slot is 2 KiB.
    const capacity = Math.max(minSlots, Math.ceil(this.#capacity * 1.5), INITIAL_SLOTS);
    const slab = new Float32Array(capacity * this.#dim);
    slab.set(this.#slab.subarray(0, this.#highWater * this.#dim));
    const slotKey = new Float64Array(capacity).fill(-1);
    slotKey.set(this.#slotKey.subarray(0, this.#highWater));
    const slotRow = new Int32Array(capacity);
    slotRow.set(this.#slotRow.subarray(0, this.#highWater));
    this.#slab = slab;
    this.#slotKey = slotKey;
    this.#slotRow = slotRow;
    this.#capacity = capacity;
  }

  /** Fills slots [0, highWater) from a vectors file; false if it is the wrong size. */
  #readVectors(path: string, highWater: number): boolean {
    const fd = openSync(path, "r");
    try {
      // Checked before allocating, so a damaged manifest cannot ask for gigabytes.
      if (fstatSync(fd).size !== highWater * (8 + this.#dim * 4)) return false;
      if (highWater > this.#capacity) this.#grow(highWater);
      const keyBytes = new Uint8Array(this.#slotKey.buffer, 0, highWater * 8);
      const rowBytes = new Uint8Array(this.#slab.buffer, 0, highWater * this.#dim * 4);
      if (!readAll(fd, keyBytes) || !readAll(fd, rowBytes)) return false;
    } finally {
      closeSync(fd);
    }
    this.#highWater = highWater;
    for (let slot = 0; slot < highWater; slot++) {
      const key = this.#slotKey[slot]!;
      if (key < 0) {
        this.#free.push(slot);
        continue;
      }
      if (!Number.isSafeInteger(key) || this.#slotOf.has(key)) return false;
      this.#slotOf.set(key, slot);
    }
    // Reuse low slots first, as a freshly built index would.
    this.#free.reverse();
    return true;
  }

  #normalise(vector: ArrayLike<number>, what: string): Float64Array {
    if (vector.length !== this.#dim) {
      throw new RangeError(`${what} has ${vector.length} dimensions, index has ${this.#dim}`);
    }
    let norm = 0;
    for (let i = 0; i < this.#dim; i++) norm += vector[i]! * vector[i]!;
    norm = Math.sqrt(norm);
    if (!Number.isFinite(norm) || norm === 0) throw new RangeError(`${what} must be finite and non-zero`);
    const out = new Float64Array(this.#dim);
    for (let i = 0; i < this.#dim; i++) out[i] = vector[i]! / norm;
    return out;
  }
}

function resolveOptions(opts: VectorIndexOptions): Resolved {
  const out: Resolved = { ...DEFAULTS };
  for (const name of Object.keys(DEFAULTS) as (keyof Resolved)[]) {
    const value = opts[name];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
    out[name] = value;
  }
  return out;
}

function checkKey(key: number): void {
  if (!Number.isSafeInteger(key) || key < 0) throw new RangeError(`vector key must be a non-negative integer, got ${key}`);
}

function sameRow(slab: Float32Array, offset: number, row: Float64Array): boolean {
  for (let i = 0; i < row.length; i++) if (slab[offset + i] !== Math.fround(row[i]!)) return false;
  return true;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

function readAll(fd: number, into: Uint8Array): boolean {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, null);
    if (n === 0) return false;
    done += n;
  }
  return true;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
