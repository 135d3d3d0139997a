/**
 * In-process k-nearest-neighbour index over unit-normalised embeddings,
 * scored by cosine similarity.
 *
 * Two engines answer queries:
 *  - an exact scan over a contiguous Float32Array slab, used while the index
 *    is small and whenever a filter leaves few enough candidates that
 *    scanning them is cheaper than walking a graph;
 *  - an hnswlib HNSW graph, built once the index reaches `hnswThreshold`,
 *    used for large unfiltered or weakly filtered searches.
 *
 * Records live in dense "slots". The slot number, not the caller's key, is
 * the HNSW label: hnswlib labels are 32-bit, SQLite rowids are not, and a
 * removed record's slot is handed to the next insert, which revives the
 * deleted graph node instead of growing the graph forever.
 *
 * The slab is kept even though hnswlib holds its own copy of every vector:
 * pulling rows out of the addon costs an N-API round trip each, which would
 * make exact scans and exact rescoring far slower than the graph search.
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
import { endianness } from "node:os";
import { join } from "node:path";
import hnsw from "hnswlib-node";
import { dotAt, scanAll, scanSlots, TopK, type VectorHit } from "./exact-scan.js";

export type { VectorHit } from "./exact-scan.js";

const { HierarchicalNSW } = hnsw;
type Graph = InstanceType<typeof HierarchicalNSW>;

export type VectorIndexOptions = {
  /** Live-record count from which the HNSW graph is built and used (default 4096). */
  hnswThreshold?: number;
  /** HNSW out-degree (default 16). Fixed once the graph exists. */
  m?: number;
  /**
   * HNSW build-time beam width (default 64). Fixed once the graph exists.
   * Lower than hnswlib's customary 200: on the bench's embedding-like data
   * recall@8 stays near 0.99 while inserts, which block the event loop,
   * cost about half what they do at 128.
   */
  efConstruction?: number;
  /** HNSW query-time beam width; raised to k when k is larger (default 64). */
  efSearch?: number;
  /**
   * Most admitted records a filtered search with k <= efSearch over 100,000
   * records scores exactly instead of walking the graph (default 6000);
   * scaled for other k and sizes, see `#exactBudget`.
   */
  exactBudget?: number;
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
};

type Resolved = Required<VectorIndexOptions>;

const DEFAULTS: Resolved = {
  hnswThreshold: 4096,
  m: 16,
  efConstruction: 64,
  efSearch: 64,
  exactBudget: 6000,
};

// A fixed seed keeps graph construction, and therefore approximate results,
// reproducible from one run to the next.
const GRAPH_SEED = 100;
const INITIAL_SLOTS = 1024;
const BUDGET_REFERENCE_SIZE = 100_000;
// Evenly spaced probes used to guess how selective an `allow` callback is.
const SELECTIVITY_PROBES = 512;

const MANIFEST = "manifest.json";
const FORMAT = "engram-vector-index";
const FORMAT_VERSION = 1;

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
};

export class VectorIndex {
  readonly #dim: number;
  readonly #opts: Resolved;
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
  #ef = -1;
  /** hnswlib only accepts plain arrays; one is reused to avoid per-call garbage. */
  readonly #scratch: number[];

  constructor(dim: number, opts: VectorIndexOptions = {}) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`vector dimension must be a positive integer, got ${dim}`);
    this.#dim = dim;
    this.#opts = resolveOptions(opts);
    this.#slab = new Float32Array(0);
    this.#slotKey = new Float64Array(0);
    this.#scratch = new Array<number>(dim).fill(0);
    this.#grow(INITIAL_SLOTS);
  }

  get dim(): number {
    return this.#dim;
  }

  get size(): number {
    return this.#slotOf.size;
  }

  has(key: number): boolean {
    return this.#slotOf.has(key);
  }

  /** Every key in the index, e.g. to reconcile a loaded index with its source of truth. */
  keys(): IterableIterator<number> {
    return this.#slotOf.keys();
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
      this.#graphPut(existing);
      return;
    }
    let slot = this.#free.pop();
    if (slot === undefined) {
      if (this.#highWater === this.#capacity) this.#grow(this.#highWater + 1);
      slot = this.#highWater++;
    }
    this.#slab.set(unit, slot * dim);
    this.#slotKey[slot] = key;
    this.#slotOf.set(key, slot);
    if (this.#graph !== undefined) this.#graphPut(slot);
    else if (this.#slotOf.size >= this.#opts.hnswThreshold) this.#buildGraph();
  }

  /** Removes `key`; returns whether it was present. */
  remove(key: number): boolean {
    const slot = this.#slotOf.get(key);
    if (slot === undefined) return false;
    this.#slotOf.delete(key);
    this.#slotKey[slot] = -1;
    this.#free.push(slot);
    this.#graph?.markDelete(slot);
    return true;
  }

  /**
   * The `k` records most similar to `query` (exact cosine scores, best first,
   * equal scores by ascending key) among those the filter admits.
   *
   * Exact whenever the index is below `hnswThreshold` or the admitted set is
   * small; approximate (HNSW) otherwise. Never returns fewer than
   * min(k, admitted records): a short graph answer is redone exactly.
   */
  search(query: ArrayLike<number>, k: number, filter: VectorFilter = {}): VectorHit[] {
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
    const q = this.#normalise(query, "query");
    if (k === 0 || this.size === 0) return [];
    const { allow, candidates } = filter;
    if (candidates !== undefined) return this.#searchCandidates(q, k, candidates, allow);
    // A walk with ef = k expands on the order of k nodes times their ~2m
    // neighbours; once that nears the record count, a plain scan is cheaper.
    if (!this.#graphUsable() || k * 8 >= this.size) {
      return scanAll(this.#slab, this.#dim, q, this.#highWater, this.#slotKey, k, allow);
    }
    if (allow === undefined) {
      return this.#graphSearch(q, k) ?? scanAll(this.#slab, this.#dim, q, this.#highWater, this.#slotKey, k);
    }
    return this.#searchAllowed(q, k, allow);
  }

  /**
   * Persists the index under `dir` so the HNSW graph need not be rebuilt on
   * the next start. Layout: `manifest.json` names a vectors file (slot keys
   * as float64, then the slab rows as float32, native byte order) and, once
   * built, an hnswlib graph file. Data files are written under fresh names
   * and the manifest is swapped in last by rename, so a crash mid-save leaves
   * the previous snapshot loadable. Stale files are deleted afterwards.
   */
  save(dir: string): void {
    mkdirSync(dir, { recursive: true });
    const generation = `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
    const vectorsFile = `vectors-${generation}.bin`;
    const graphFile = this.#graph !== undefined ? `graph-${generation}.bin` : null;

    const fd = openSync(join(dir, vectorsFile), "w");
    try {
      writeAll(fd, new Uint8Array(this.#slotKey.buffer, 0, this.#highWater * 8));
      writeAll(fd, new Uint8Array(this.#slab.buffer, 0, this.#highWater * this.#dim * 4));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (graphFile !== null) {
      this.#graph!.writeIndexSync(join(dir, graphFile));
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
    };
    const tmp = join(dir, `${MANIFEST}.${generation}.tmp`);
    writeFileSync(tmp, JSON.stringify(manifest));
    fsyncPath(tmp);
    renameSync(tmp, join(dir, MANIFEST));
    fsyncPath(dir);

    for (const name of readdirSync(dir)) {
      const ours = /^(vectors|graph)-.*\.bin$/.test(name) || /^manifest\.json\..*\.tmp$/.test(name);
      if (ours && name !== vectorsFile && name !== graphFile) rmSync(join(dir, name), { force: true });
    }
  }

  /**
   * Reads an index saved by `save`. Returns undefined when there is nothing
   * usable under `dir` (missing, other dimension, other format, truncated or
   * unreadable files): the caller should then rebuild from its records. A
   * loaded index reflects the moment of the save; records written since must
   * be re-applied by the caller (see `keys()`).
   *
   * `opts` may change the query-time settings (efSearch, thresholds); the
   * graph's m and efConstruction stay as saved.
   */
  static load(dir: string, dim: number, opts: VectorIndexOptions = {}): VectorIndex | undefined {
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
      index = new VectorIndex(dim, merged);
    } catch {
      return undefined;
    }
    try {
      if (!index.#readVectors(join(dir, manifest.vectorsFile), manifest.highWater)) return undefined;
      if (index.size !== manifest.live) return undefined;
      if (manifest.graphFile !== null) {
        const graph = new HierarchicalNSW("ip", dim);
        graph.readIndexSync(join(dir, manifest.graphFile));
        if (graph.getNumDimensions() !== dim || graph.getCurrentCount() > manifest.highWater) return undefined;
        if (graph.getMaxElements() < index.#capacity) graph.resizeIndex(index.#capacity);
        index.#graph = graph;
        index.#ef = graph.getEf();
      } else if (index.size >= index.#opts.hnswThreshold) {
        index.#buildGraph();
      }
    } catch {
      return undefined;
    }
    return index;
  }

  // ---- search paths -------------------------------------------------------

  #graphUsable(): boolean {
    return this.#graph !== undefined && this.size >= this.#opts.hnswThreshold;
  }

  /**
   * Admitted-record count below which an exact scan beats a filtered graph
   * walk. A scan costs one JS dot product per admitted record (a records);
   * a walk admitting a fraction p = a/n must expand about ef/p nodes before
   * it has ef admitted results, each expansion scoring a few dozen
   * neighbours natively. Equal costs give a^2 proportional to ef * n; the
   * constant comes from `exactBudget`, the break-even measured at
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
  ): VectorHit[] {
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
      const hits = this.#graphSearch(q, k, accept);
      if (hits !== undefined) return hits;
    }
    return scanSlots(this.#slab, this.#dim, q, slots, count, this.#slotKey, k, allow);
  }

  #searchAllowed(q: Float64Array, k: number, allow: (key: number) => boolean): VectorHit[] {
    const slotKey = this.#slotKey;
    // Probe a spread of live records: a callback that admits most of them is
    // cheapest to hand straight to the graph walk, which consults it only
    // for the few thousand nodes it visits.
    const probes = Math.min(SELECTIVITY_PROBES, this.#highWater);
    const stride = this.#highWater / probes;
    let seen = 0;
    let admitted = 0;
    for (let i = 0; i < probes; i++) {
      const key = slotKey[Math.floor(i * stride)]!;
      if (key < 0) continue;
      seen++;
      if (allow(key)) admitted++;
    }
    // Go straight to the graph only if a pessimistic reading of the sample
    // (about two standard deviations low) still clears the budget: a walk
    // misrouted onto a selective filter costs tens of milliseconds, while a
    // needless full pass below costs about one.
    const pessimistic = seen === 0 ? 0 : (Math.max(0, admitted - 2 * Math.sqrt(admitted)) / seen) * this.size;
    if (pessimistic > this.#exactBudget(k)) {
      const hits = this.#graphSearch(q, k, (slot) => slotKey[slot]! >= 0 && allow(slotKey[slot]!));
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
      const hits = this.#graphSearch(q, k, (slot) => marks[slot] === 1);
      if (hits !== undefined) return hits;
    }
    return scanSlots(this.#slab, this.#dim, q, slots, count, slotKey, k);
  }

  /**
   * HNSW k-NN, rescored exactly from the slab. Returns undefined when the
   * graph produced fewer than k hits so the caller can fall back to a scan.
   */
  #graphSearch(q: Float64Array, k: number, accept?: (slot: number) => boolean): VectorHit[] | undefined {
    const graph = this.#graph!;
    const ef = Math.max(this.#opts.efSearch, k);
    if (ef !== this.#ef) {
      graph.setEf(ef);
      this.#ef = ef;
    }
    const point = this.#scratch;
    for (let i = 0; i < this.#dim; i++) point[i] = q[i]!;

    let result: { neighbors: number[] };
    if (accept === undefined) {
      result = graph.searchKnn(point, k);
    } else {
      // An exception escaping into the addon mid-walk would unwind through
      // hnswlib and leak its per-search state; park it and rethrow here.
      let failure: { error: unknown } | undefined;
      result = graph.searchKnn(point, k, (slot: number) => {
        if (failure !== undefined) return false;
        try {
          return accept(slot);
        } catch (error) {
          failure = { error };
          return false;
        }
      });
      if (failure !== undefined) throw failure.error;
    }
    const neighbors = result.neighbors;
    if (neighbors.length < k) return undefined;
    const top = new TopK(k);
    for (const slot of neighbors) {
      const key = this.#slotKey[slot]!;
      if (key < 0) return undefined; // cannot happen while deletions are mirrored; never trust it blindly
      top.offer(key, dotAt(this.#slab, slot * this.#dim, q, this.#dim));
    }
    return top.drain();
  }

  // ---- maintenance --------------------------------------------------------

  #buildGraph(): void {
    const graph = new HierarchicalNSW("ip", this.#dim);
    graph.initIndex({
      maxElements: this.#capacity,
      m: this.#opts.m,
      efConstruction: this.#opts.efConstruction,
      randomSeed: GRAPH_SEED,
    });
    this.#graph = graph;
    this.#ef = graph.getEf();
    try {
      for (let slot = 0; slot < this.#highWater; slot++) {
        if (this.#slotKey[slot]! >= 0) this.#graphPut(slot);
      }
    } catch (error) {
      // A half-built graph would silently miss records; keep scanning instead.
      this.#graph = undefined;
      throw error;
    }
  }

  /** Adds the slot's row to the graph, or updates (and revives) its node. */
  #graphPut(slot: number): void {
    const graph = this.#graph;
    if (graph === undefined) return;
    const point = this.#scratch;
    const offset = slot * this.#dim;
    for (let i = 0; i < this.#dim; i++) point[i] = this.#slab[offset + i]!;
    graph.addPoint(point, slot);
  }

  #grow(minSlots: number): void {
    // 1.5x rather than 2x: at 100k x 512 floats every spare slot is 2 KiB.
    const capacity = Math.max(minSlots, Math.ceil(this.#capacity * 1.5), INITIAL_SLOTS);
    const slab = new Float32Array(capacity * this.#dim);
    slab.set(this.#slab.subarray(0, this.#highWater * this.#dim));
    const slotKey = new Float64Array(capacity).fill(-1);
    slotKey.set(this.#slotKey.subarray(0, this.#highWater));
    this.#slab = slab;
    this.#slotKey = slotKey;
    this.#capacity = capacity;
    this.#graph?.resizeIndex(capacity);
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
