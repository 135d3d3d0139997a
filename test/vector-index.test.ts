import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SELECTIVITY_PROBES } from "../src/store/embedded/vector/share-probe.js";
import { VectorIndex, type VectorHit } from "../src/store/embedded/vector/vector-index.js";
import { clustered, gaussian, mulberry32 } from "./helpers/synthetic-vectors.js";

// ---- deterministic synthetic embeddings --------------------------------------

function randomVectors(seed: number, count: number, dim: number): Float32Array[] {
  const rand = mulberry32(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dim }, () => gaussian(rand)));
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  return v.map((x) => x / n);
}

const unitMemo = new WeakMap<Float32Array, Float32Array>();
function unitCached(v: Float32Array): Float32Array {
  let u = unitMemo.get(v);
  if (u === undefined) unitMemo.set(v, (u = unit(v)));
  return u;
}

/** The reference answer: every admitted vector scored in float64, fully sorted. */
function bruteForce(
  vectors: ReadonlyMap<number, Float32Array>,
  query: Float32Array,
  k: number,
  allow: (key: number) => boolean = () => true,
): VectorHit[] {
  const q = unit(query);
  const hits: VectorHit[] = [];
  for (const [key, raw] of vectors) {
    if (!allow(key)) continue;
    const v = unitCached(raw);
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i]! * q[i]!;
    hits.push({ key, score: s });
  }
  hits.sort((a, b) => b.score - a.score || a.key - b.key);
  return hits.slice(0, k);
}

function keysOf(hits: readonly VectorHit[]): number[] {
  return hits.map((h) => h.key);
}

function expectSameHits(got: readonly VectorHit[], want: readonly VectorHit[]): void {
  expect(keysOf(got)).toEqual(keysOf(want));
  got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 5));
}

function recallAt(got: readonly VectorHit[], want: readonly VectorHit[]): number {
  const wanted = new Set(keysOf(want));
  return got.filter((h) => wanted.has(h.key)).length / want.length;
}

function indexOf(vectors: ReadonlyMap<number, Float32Array>, dim: number, opts?: ConstructorParameters<typeof VectorIndex>[1]) {
  const index = new VectorIndex(dim, opts);
  for (const [key, v] of vectors) index.upsert(key, v);
  return index;
}

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "engram-vector-index-"));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

// ---- small sets: exact scan --------------------------------------------------------

describe("a small vector index", () => {
  const dim = 48;
  const vectors = new Map<number, Float32Array>();
  randomVectors(1, 600, dim).forEach((v, i) => vectors.set(i * 7 + 3, v)); // sparse, rowid-like keys
  const queries = randomVectors(2, 25, dim);

  it("returns exactly the brute-force top k", () => {
    const index = indexOf(vectors, dim);
    expect(index.size).toBe(600);
    for (const q of queries) {
      for (const k of [1, 8, 50]) expectSameHits(index.search(q, k), bruteForce(vectors, q, k));
    }
  });

  it("returns exactly the brute-force top k among keys the filter admits", () => {
    const index = indexOf(vectors, dim);
    const allow = (key: number) => key % 3 === 0;
    const candidates = [...vectors.keys()].filter((key) => key % 5 === 0);
    for (const q of queries) {
      expectSameHits(index.search(q, 10, { allow }), bruteForce(vectors, q, 10, allow));
      expectSameHits(
        index.search(q, 10, { candidates }),
        bruteForce(vectors, q, 10, (key) => key % 5 === 0),
      );
      expectSameHits(
        index.search(q, 10, { candidates, allow }),
        bruteForce(vectors, q, 10, (key) => key % 15 === 0),
      );
    }
  });

  it("ignores unknown and repeated candidate keys", () => {
    const index = indexOf(vectors, dim);
    const hits = index.search(queries[0]!, 10, { candidates: [3, 3, 10, 3, 999_999, 17] });
    expect(keysOf(hits).sort((a, b) => a - b)).toEqual([3, 10, 17]);
  });

  it("returns every admitted record, best first, when k exceeds what exists", () => {
    const index = indexOf(vectors, dim);
    const all = index.search(queries[0]!, 10_000);
    expect(all).toHaveLength(600);
    expectSameHits(all, bruteForce(vectors, queries[0]!, 600));
    expect(index.search(queries[0]!, 8, { allow: (key) => key === 10 || key === 17 })).toHaveLength(2);
    expect(index.search(queries[0]!, 8, { candidates: [] })).toEqual([]);
    expect(index.search(queries[0]!, 0)).toEqual([]);
  });

  it("scores by cosine similarity whatever the input lengths", () => {
    const index = new VectorIndex(2);
    index.upsert(1, new Float32Array([3, 4]));
    index.upsert(2, new Float32Array([0, -10]));
    const hits = index.search(new Float32Array([100, 0]), 2);
    expect(keysOf(hits)).toEqual([1, 2]);
    expect(hits[0]!.score).toBeCloseTo(0.6, 6);
    expect(hits[1]!.score).toBeCloseTo(0, 6);
  });

  it("breaks score ties by ascending key", () => {
    const index = new VectorIndex(3);
    for (const key of [42, 7, 19, 3]) index.upsert(key, new Float32Array([1, 1, 0]));
    index.upsert(5, new Float32Array([0, 0, 1]));
    expect(keysOf(index.search(new Float32Array([1, 0, 0]), 3))).toEqual([3, 7, 19]);
  });

  it("replaces the vector of a key that is upserted again", () => {
    const index = indexOf(vectors, dim);
    const q = queries[0]!;
    const target = 3 + 7 * 500;
    index.upsert(target, q);
    expect(index.size).toBe(600);
    expect(index.search(q, 1)).toEqual([{ key: target, score: expect.closeTo(1, 5) }]);
    index.upsert(target, q.map((x) => -x));
    expect(index.search(q, 600).at(-1)).toEqual({ key: target, score: expect.closeTo(-1, 5) });
  });

  it("forgets removed keys and can take them back", () => {
    const index = indexOf(vectors, dim);
    const q = queries[1]!;
    const [first, second] = index.search(q, 2);
    expect(index.remove(first!.key)).toBe(true);
    expect(index.remove(first!.key)).toBe(false);
    expect(index.has(first!.key)).toBe(false);
    expect(index.size).toBe(599);
    expect(index.search(q, 1)[0]!.key).toBe(second!.key);
    expect(keysOf(index.search(q, 600))).not.toContain(first!.key);
    index.upsert(first!.key, vectors.get(first!.key)!);
    expect(index.search(q, 1)[0]!.key).toBe(first!.key);
    expect([...index.keys()].sort((a, b) => a - b)).toEqual([...vectors.keys()].sort((a, b) => a - b));
  });

  it("rejects malformed keys, vectors, queries and k", () => {
    const index = new VectorIndex(3);
    expect(() => index.upsert(-1, new Float32Array([1, 0, 0]))).toThrow(RangeError);
    expect(() => index.upsert(1.5, new Float32Array([1, 0, 0]))).toThrow(RangeError);
    expect(() => index.upsert(1, new Float32Array([1, 0]))).toThrow(RangeError);
    expect(() => index.upsert(1, new Float32Array([0, 0, 0]))).toThrow(RangeError);
    expect(() => index.upsert(1, new Float32Array([NaN, 0, 0]))).toThrow(RangeError);
    index.upsert(1, [1, 0, 0]);
    expect(() => index.search(new Float32Array([1, 0]), 1)).toThrow(RangeError);
    expect(() => index.search(new Float32Array([1, 0, 0]), -1)).toThrow(RangeError);
    expect(() => new VectorIndex(0)).toThrow(RangeError);
    expect(() => new VectorIndex(3, { efSearch: 0 })).toThrow(RangeError);
  });

  it("hands back the error a filter throws and stays usable", () => {
    const index = indexOf(vectors, dim);
    const boom = new Error("scope lookup failed");
    expect(() => index.search(queries[0]!, 5, { allow: () => { throw boom; } })).toThrow(boom);
    expect(index.search(queries[0]!, 5)).toHaveLength(5);
  });

  it("round-trips through save and load", () => {
    const index = indexOf(vectors, dim);
    index.remove(3 + 7 * 10);
    const dir = tempDir();
    index.save(dir);
    const loaded = VectorIndex.load(dir, dim);
    expect(loaded).toBeDefined();
    expect(loaded!.size).toBe(599);
    for (const q of queries) expect(loaded!.search(q, 20)).toEqual(index.search(q, 20));
    // The freed slot is reusable after the load.
    loaded!.upsert(5, queries[0]!);
    expect(loaded!.search(queries[0]!, 1)[0]!.key).toBe(5);
  });

  it("loads in slices, handing the event loop back between them, into the same index a load in one piece gives", async () => {
    const index = indexOf(vectors, dim);
    index.remove(3 + 7 * 10);
    const dir = tempDir();
    index.save(dir);
    let turns = 0;
    // 4 KiB a read: the 600 slots' keys and rows come in this many reads, each followed by a turn of the loop, then one turn mapping them.
    const sliced = await VectorIndex.loadInSlices(dir, dim, {}, {}, async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      turns++;
      return true;
    }, 4096);
    expect(turns).toBe(Math.ceil((600 * 8) / 4096) + Math.ceil((600 * dim * 4) / 4096) + 1);
    expect(sliced!.size).toBe(599);
    for (const q of queries) expect(sliced!.search(q, 20)).toEqual(VectorIndex.load(dir, dim)!.search(q, 20));
    sliced!.upsert(5, queries[0]!);
    expect(sliced!.search(queries[0]!, 1)[0]!.key).toBe(5);
  });

  it("gives up a load in slices when told to between two, and loads nothing from a damaged snapshot", async () => {
    const dir = tempDir();
    indexOf(vectors, dim).save(dir);
    let turns = 0;
    expect(await VectorIndex.loadInSlices(dir, dim, {}, {}, async () => ++turns < 3, 4096)).toBeUndefined();
    expect(turns).toBe(3);
    const vectorsFile = readdirSync(dir).find((name) => name.startsWith("vectors-"))!;
    writeFileSync(join(dir, vectorsFile), "truncated");
    expect(await VectorIndex.loadInSlices(dir, dim, {}, {}, async () => true)).toBeUndefined();
  });

  it("loads nothing from a missing, foreign or damaged snapshot", () => {
    const index = indexOf(vectors, dim);
    const dir = tempDir();
    expect(VectorIndex.load(join(dir, "absent"), dim)).toBeUndefined();
    index.save(dir);
    expect(VectorIndex.load(dir, dim + 1)).toBeUndefined();
    const vectorsFile = readdirSync(dir).find((name) => name.startsWith("vectors-"))!;
    writeFileSync(join(dir, vectorsFile), "truncated");
    expect(VectorIndex.load(dir, dim)).toBeUndefined();
  });

  it("keeps only the newest snapshot's files after saving twice", () => {
    const index = indexOf(vectors, dim);
    const dir = tempDir();
    index.save(dir);
    index.remove(3);
    index.save(dir);
    expect(readdirSync(dir)).toHaveLength(2); // manifest + vectors, no graph below the threshold
    expect(VectorIndex.load(dir, dim)!.has(3)).toBe(false);
  });
});

// ---- a large set: the HNSW graph ---------------------------------------------------

describe("a vector index over 20,000 clustered 512-d embeddings", () => {
  const dim = 512;
  const count = 20_000;
  const vectors = new Map<number, Float32Array>();
  const queries: Float32Array[] = [];
  let index: VectorIndex;

  beforeAll(() => {
    const draw = clustered(11, dim);
    for (let i = 0; i < count; i++) vectors.set(i * 3 + 1, draw());
    for (let i = 0; i < 40; i++) queries.push(draw());
    // A lighter build than the defaults keeps the suite quick; the recall
    // bar below still has to be met.
    index = indexOf(vectors, dim, { efConstruction: 64 });
  });

  it("finds at least 95% of the true top 10 through the graph", () => {
    let recall = 0;
    for (const q of queries) {
      const hits = index.search(q, 10);
      expect(hits).toHaveLength(10);
      // Whatever the graph found is rescored exactly and sorted.
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
      recall += recallAt(hits, bruteForce(vectors, q, 10));
    }
    expect(recall / queries.length).toBeGreaterThanOrEqual(0.95);
  });

  it("returns the true top k among keys when a filter admits 1% of them", () => {
    const allow = (key: number) => key % 100 === 1; // 200 of 20,000
    const candidates = [...vectors.keys()].filter(allow);
    for (const q of queries.slice(0, 10)) {
      const want = bruteForce(vectors, q, 8, allow);
      expectSameHits(index.search(q, 8, { allow }), want);
      expectSameHits(index.search(q, 8, { candidates }), want);
    }
  });

  it("probes a filter's share once, then asks it only about the neighbours a walk fetches, and finds the same hits", () => {
    let asked = 0;
    const most = (key: number) => (asked++, key % 10 !== 0);
    const cell: { share?: number } = {};
    const q = queries[0]!;
    const probed = index.search(q, 20, { allow: most, shareCell: cell });
    const probedAsks = asked;
    // Nine in ten admitted, read about two standard deviations low.
    expect(cell.share).toBeGreaterThan(0.8);
    expect(cell.share).toBeLessThan(0.9);
    asked = 0;
    const kept = index.search(q, 20, { allow: most, shareCell: cell });
    expect(probedAsks - asked).toBe(SELECTIVITY_PROBES);
    expect(keysOf(kept)).toEqual(keysOf(probed));
    expect(keysOf(index.search(q, 20, { allow: most }))).toEqual(keysOf(probed));
  });

  it("never returns fewer hits than exist when the graph walk is filtered", () => {
    // A one-vector exact budget forces filtered searches onto the graph.
    const dir = tempDir();
    index.save(dir);
    const graphOnly = VectorIndex.load(dir, dim, { exactBudget: 1 })!;
    const scarce = (key: number) => key % 1000 === 1; // 20 admitted
    for (const q of queries.slice(0, 5)) {
      expectSameHits(graphOnly.search(q, 30, { allow: scarce }), bruteForce(vectors, q, 30, scarce));
      const hits = graphOnly.search(q, 8, { allow: scarce });
      expect(hits).toHaveLength(8);
      expect(recallAt(hits, bruteForce(vectors, q, 8, scarce))).toBeGreaterThanOrEqual(0.75);
      const half = (key: number) => key % 2 === 0;
      const halfHits = graphOnly.search(q, 8, { allow: half });
      expect(halfHits).toHaveLength(8);
      expect(halfHits.every((h) => half(h.key))).toBe(true);
    }
  });

  it("hands back the error a filter throws part-way through a large search", () => {
    // Any walk that finds the nearest record must ask about it, so the
    // failure surfaces mid-walk rather than in some up-front pass.
    const nearest = bruteForce(vectors, queries[0]!, 1)[0]!.key;
    const boom = new Error("recall gate failed");
    const allow = (key: number) => {
      if (key === nearest) throw boom;
      return true;
    };
    expect(() => index.search(queries[0]!, 8, { allow })).toThrow(boom);
    expect(index.search(queries[0]!, 8)).toHaveLength(8);
  });

  it("gives identical results after a save and load", () => {
    const dir = tempDir();
    index.save(dir);
    const loaded = VectorIndex.load(dir, dim)!;
    expect(loaded.size).toBe(count);
    const tenth = (key: number) => key % 10 === 4;
    for (const q of queries) {
      expect(loaded.search(q, 10)).toEqual(index.search(q, 10));
      expect(loaded.search(q, 10, { allow: tenth })).toEqual(index.search(q, 10, { allow: tenth }));
    }
  });

  it("answers many rows' neighbours at once alike from a graph built here (one search context) and the same graph loaded (one per core)", () => {
    const dir = tempDir();
    index.save(dir);
    const loaded = VectorIndex.load(dir, dim)!;
    const keys = [...vectors.keys()].filter((_, i) => i % 40 === 0);
    const admitted = new Set([...vectors.keys()].filter((key) => key % 2 === 1));
    const built = index.nearestMany(keys, 5, admitted);
    const fromSnapshot = loaded.nearestMany(keys, 5, admitted);
    expect(built.size).toBe(keys.length);
    expect(fromSnapshot).toEqual(built);
    for (const [key, hits] of built) {
      expect(hits).toHaveLength(5);
      expect(hits.every((h) => h.key !== key && admitted.has(h.key))).toBe(true);
    }
  });

  it("keeps the graph in step with upserts and removals", () => {
    const q = queries[3]!;
    const [top] = index.search(q, 1);
    index.remove(top!.key);
    expect(keysOf(index.search(q, 50))).not.toContain(top!.key);
    const fresh = 1_000_000;
    index.upsert(fresh, q);
    expect(index.search(q, 1)).toEqual([{ key: fresh, score: expect.closeTo(1, 5) }]);
    index.upsert(fresh, q.map((x) => -x));
    expect(keysOf(index.search(q, 50))).not.toContain(fresh);
    expect(index.size).toBe(count);
    index.remove(fresh);
    index.upsert(top!.key, vectors.get(top!.key)!);
    expect(index.search(q, 1)[0]!.key).toBe(top!.key);
  });
});

describe("a vector index whose graph is built step by step", () => {
  const dim = 512;
  const vectors = new Map<number, Float32Array>();
  const queries: Float32Array[] = [];
  const draw = clustered(23, dim);
  for (let i = 0; i < 18_000; i++) vectors.set(i * 2 + 5, draw());
  for (let i = 0; i < 20; i++) queries.push(draw());

  it("answers exactly (scores and order of a brute-force scan) until its graph is complete, then through the graph", () => {
    const index = new VectorIndex(dim, {}, { graphBuild: "stepwise" });
    for (const [key, v] of vectors) index.upsert(key, v);
    expect(index.graphPending).toBe(true);
    const scope = (key: number) => key % 10 === 5;
    for (const q of queries) {
      expectSameHits(index.search(q, 10), bruteForce(vectors, q, 10));
      expectSameHits(index.search(q, 10, { allow: scope }), bruteForce(vectors, q, 10, scope));
    }
    // Writes during the build land in the graph too.
    const fresh = 9_000_001;
    let steps = 0;
    while (!index.buildGraphStep(4096)) {
      if (++steps === 2) index.upsert(fresh, queries[0]!);
    }
    expect(index.graphPending).toBe(false);
    expect(index.search(queries[0]!, 1)[0]).toEqual({ key: fresh, score: expect.closeTo(1, 5) });
    index.remove(fresh);
    let recall = 0;
    for (const q of queries) recall += recallAt(index.search(q, 10), bruteForce(vectors, q, 10));
    expect(recall / queries.length).toBeGreaterThanOrEqual(0.95);
  });
});

describe("a vector index whose records are grouped (one scope each)", () => {
  const dim = 512;
  const vectors = new Map<number, Float32Array>();
  const queries: Float32Array[] = [];
  let index: VectorIndex;
  const groupOf = (key: number) => (key % 2 === 0 ? "even" : "odd");

  beforeAll(() => {
    const draw = clustered(23, dim);
    for (let i = 0; i < 20_000; i++) vectors.set(i, draw());
    for (let i = 0; i < 30; i++) queries.push(draw());
    index = indexOf(vectors, dim, { efConstruction: 64 });
    for (const key of vectors.keys()) index.setGroup(key, groupOf(key));
  });

  const members = (name: string) => new Set([...vectors.keys()].filter((key) => groupOf(key) === name));

  it("a search confined to a large group returns only its members, with exact scores, and at least 98% of its true top 32", () => {
    const even = members("even");
    let recall = 0;
    for (const q of queries) {
      const hits = index.search(q, 32, { candidates: even, group: "even" });
      expect(hits).toHaveLength(32);
      expect(hits.every((h) => even.has(h.key))).toBe(true);
      const want = bruteForce(vectors, q, 32, (key) => even.has(key));
      const exact = new Map(bruteForce(vectors, q, 20_000, (key) => even.has(key)).map((h) => [h.key, h.score]));
      for (const h of hits) expect(h.score).toBeCloseTo(exact.get(h.key)!, 5);
      recall += recallAt(hits, want);
    }
    expect(recall / queries.length).toBeGreaterThanOrEqual(0.98);
  });

  it("still finds k admitted members when the filter admits few of the group", () => {
    const even = members("even");
    const rare = (key: number) => key % 200 === 0; // 100 of the 10,000 even keys
    for (const q of queries.slice(0, 5)) {
      const hits = index.search(q, 32, { candidates: even, group: "even", allow: rare });
      expect(hits).toHaveLength(32);
      expect(hits.every((h) => rare(h.key))).toBe(true);
      expect(recallAt(hits, bruteForce(vectors, q, 32, rare))).toBeGreaterThanOrEqual(0.9);
    }
  });

  it("follows a record that moves group, changes vector or is removed", () => {
    const q = queries[0]!;
    const key = 7; // odd
    index.upsert(key, q);
    expect(index.search(q, 1, { candidates: members("odd"), group: "odd" })[0]).toEqual({ key, score: expect.closeTo(1, 5) });
    index.setGroup(key, "even");
    expect(index.groupOf(key)).toBe("even");
    expect(index.groupSize("even")).toBe(10_001);
    expect(index.search(q, 1, { candidates: new Set([...members("even"), key]), group: "even" })[0]!.key).toBe(key);
    // A new vector is seen through the group's block too.
    index.upsert(key, q.map((x) => -x));
    expect(keysOf(index.search(q, 50, { candidates: new Set([...members("even"), key]), group: "even" }))).not.toContain(key);
    index.remove(key);
    expect(index.groupSize("even")).toBe(10_000);
    expect(index.groupOf(key)).toBeUndefined();
    index.upsert(key, vectors.get(key)!);
    index.setGroup(key, "odd");
    expect(index.groupSize("odd")).toBe(10_000);
  });

  it("saves no groups: a loaded index answers a group-confined search through its graph until the groups are set again", () => {
    const dir = tempDir();
    index.save(dir);
    const loaded = VectorIndex.load(dir, dim)!;
    expect(loaded.groupSize("even")).toBe(0);
    const even = members("even");
    const hits = loaded.search(queries[1]!, 8, { candidates: even, group: "even" });
    expect(hits).toHaveLength(8);
    expect(hits.every((h) => even.has(h.key))).toBe(true);
  });
});
