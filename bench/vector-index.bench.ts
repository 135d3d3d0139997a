/**
 * Micro-benchmark for src/store/embedded/vector/vector-index.ts.
 *
 *   npx tsx bench/vector-index.bench.ts [records=100000] [queries=100] [efConstruction]
 *
 * Synthetic data: 512-d unit vectors drawn from clusters in a 32-d latent
 * space, projected up and blurred with isotropic noise, so neighbourhoods
 * look like real sentence embeddings rather than uniform noise (on which
 * every ANN index looks bad and every exact answer is a coin toss).
 * Everything is seeded, so two runs see identical data.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { dotAt, TopK, type VectorHit } from "../src/store/embedded/exact-scan.js";
import { VectorIndex, type VectorFilter } from "../src/store/embedded/vector/vector-index.js";
import { clustered, mulberry32 } from "../test/helpers/synthetic-vectors.js";

const DIM = 512;
const LATENT = 32;
const CLUSTERS = 1000;
const RECORDS = Number(process.argv[2] ?? 100_000);
const QUERIES = Number(process.argv[3] ?? 100);
const EF_CONSTRUCTION = process.argv[4] === undefined ? undefined : Number(process.argv[4]);

/** Seeded source of clustered unit vectors. */
function embeddingSource(seed: number): () => Float32Array {
  return clustered(seed, DIM, LATENT, CLUSTERS);
}

/** Reference answer: score every admitted row, no index involved. */
function bruteForce(rows: Float32Array, query: Float32Array, k: number, allow?: (key: number) => boolean): VectorHit[] {
  const q = Float64Array.from(query);
  const top = new TopK(k);
  const n = rows.length / DIM;
  for (let key = 0; key < n; key++) {
    if (allow !== undefined && !allow(key)) continue;
    top.offer(key, dotAt(rows, key * DIM, q, DIM));
  }
  return top.drain();
}

function recall(truth: VectorHit[], got: VectorHit[]): number {
  if (truth.length === 0) return 1;
  const want = new Set(truth.map((h) => h.key));
  let hit = 0;
  for (const h of got) if (want.has(h.key)) hit++;
  return hit / truth.length;
}

function fmt(n: number, digits = 2): string {
  return n.toFixed(digits);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

// ---- data -------------------------------------------------------------------

const t0 = performance.now();
const draw = embeddingSource(42);
const rows = new Float32Array(RECORDS * DIM);
for (let key = 0; key < RECORDS; key++) rows.set(draw(), key * DIM);
const queries: Float32Array[] = [];
for (let i = 0; i < QUERIES; i++) queries.push(draw());
// Scope membership independent of content, like a project tag.
const member = mulberry32(7);
const scopeDraw = new Float64Array(RECORDS);
for (let key = 0; key < RECORDS; key++) scopeDraw[key] = member();
console.log(`generated ${RECORDS} x ${DIM} records + ${QUERIES} queries in ${fmt((performance.now() - t0) / 1000, 1)} s`);

// ---- build, save, load ------------------------------------------------------

let t = performance.now();
const built = new VectorIndex(DIM, { efConstruction: EF_CONSTRUCTION });
for (let key = 0; key < RECORDS; key++) built.upsert(key, rows.subarray(key * DIM, (key + 1) * DIM));
const buildS = (performance.now() - t) / 1000;

const dir = mkdtempSync(join(tmpdir(), "engram-vector-bench-"));
t = performance.now();
built.save(dir);
const saveS = (performance.now() - t) / 1000;
t = performance.now();
const loaded = VectorIndex.load(dir, DIM);
const loadS = (performance.now() - t) / 1000;
rmSync(dir, { recursive: true, force: true });
if (loaded === undefined) throw new Error("load returned undefined");
for (const q of queries.slice(0, 20)) {
  if (JSON.stringify(loaded.search(q, 8)) !== JSON.stringify(built.search(q, 8))) {
    throw new Error("loaded index disagrees with the one that was saved");
  }
}
console.log(`build ${fmt(buildS, 1)} s   save ${fmt(saveS, 2)} s   load ${fmt(loadS, 2)} s   (${loaded.size} records)`);

// ---- queries ------------------------------------------------------------------

type Case = { name: string; k: number; filter?: VectorFilter; allow?: (key: number) => boolean };

const in10 = (key: number) => scopeDraw[key]! < 0.1;
const in1 = (key: number) => scopeDraw[key]! < 0.01;
const in99 = (key: number) => scopeDraw[key]! >= 0.01;
const keys10: number[] = [];
const keys1: number[] = [];
for (let key = 0; key < RECORDS; key++) {
  if (in10(key)) keys10.push(key);
  if (in1(key)) keys1.push(key);
}

const cases: Case[] = [
  { name: "unfiltered", k: 8 },
  { name: "allow ~99% (cross-spine)", k: 8, filter: { allow: in99 }, allow: in99 },
  { name: "allow ~10%", k: 8, filter: { allow: in10 }, allow: in10 },
  { name: "allow ~1%", k: 8, filter: { allow: in1 }, allow: in1 },
  { name: "candidates ~10%", k: 8, filter: { candidates: keys10 }, allow: in10 },
  { name: "candidates ~1%", k: 8, filter: { candidates: keys1 }, allow: in1 },
  { name: "unfiltered, over-fetch", k: 1000 },
  { name: "allow ~10%, over-fetch", k: 1000, filter: { allow: in10 }, allow: in10 },
];

type Tally = { wall: number[]; cpu: number; bruteWall: number; recall: number };
const tallies: Tally[] = cases.map(() => ({ wall: [], cpu: 0, bruteWall: 0, recall: 0 }));
const index = loaded;
// Warm the JIT and the graph's caches before timing anything.
for (const q of queries.slice(0, 10)) for (const c of cases) index.search(q, c.k, c.filter);
// Cases take turns query by query, so a noisy neighbour on a shared machine
// inflates them all alike instead of whichever case it happened to overlap.
for (const q of queries) {
  cases.forEach((c, i) => {
    const tally = tallies[i]!;
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    const got = index.search(q, c.k, c.filter);
    tally.wall.push(performance.now() - wall0);
    const cpu = process.cpuUsage(cpu0);
    tally.cpu += (cpu.user + cpu.system) / 1000;
    const brute0 = performance.now();
    const truth = bruteForce(rows, q, c.k, c.allow);
    tally.bruteWall += performance.now() - brute0;
    tally.recall += recall(truth, got);
  });
}

const table = cases.map((c, i) => {
  const tally = tallies[i]!;
  const wall = [...tally.wall].sort((a, b) => a - b);
  return {
    case: c.name,
    k: c.k,
    admitted: c.allow === undefined ? RECORDS : RECORDS - countRejected(c.allow),
    "median ms": fmt(percentile(wall, 0.5), 3),
    "mean ms": fmt(wall.reduce((a, b) => a + b, 0) / wall.length, 3),
    "p95 ms": fmt(percentile(wall, 0.95), 3),
    "cpu ms": fmt(tally.cpu / queries.length, 3),
    "recall@k": fmt(tally.recall / queries.length, 4),
    "brute ms": fmt(tally.bruteWall / queries.length, 2),
  };
});
console.table(table);
console.log("ms columns are per query; cpu = process CPU time; brute = exact scan of every admitted record");
console.log(
  `total ${fmt((performance.now() - t0) / 1000, 1)} s on ${cpus().length} cores; ` +
    `1-min load average at the end: ${fmt(loadavg()[0]!, 1)}`,
);

function countRejected(allow: (key: number) => boolean): number {
  let n = 0;
  for (let key = 0; key < RECORDS; key++) if (!allow(key)) n++;
  return n;
}
