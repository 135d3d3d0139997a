/**
 * `npm run bench`: recall over 100,000 synthetic records on the embedded
 * store, next to the cost of embedding one query with the local model, all
 * measured side by side in one run (these machines are noisy: read ratios).
 *
 *   ENGRAM_BENCH_RECORDS  records to load (default 100000)
 *   ENGRAM_BENCH_QUERIES  queries per measurement (default 50)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createCore, DEFAULT_LIMITS, silentLogger, ANONYMOUS, type MemoryRecord } from "../src/core/index.js";
import { sharedLocalEmbedder, type Embedder } from "../src/embed/index.js";
import { EmbeddedStore } from "../src/store/embedded-store.js";
import { GATE_ON } from "../src/store/store.js";

const N = Number(process.env.ENGRAM_BENCH_RECORDS ?? 100_000);
const Q = Number(process.env.ENGRAM_BENCH_QUERIES ?? 50);
const DIM = 512;
const SCOPES = 10;
const K = 8;

/** Deterministic PRNG so every run measures the same data. */
function mulberry32(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = mulberry32(20261129);
const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());

// Real embeddings cluster: draw vectors from a 32-d latent space plus noise.
const LATENT = 32;
const basis = Array.from({ length: LATENT }, () => Float32Array.from({ length: DIM }, gauss));
function synthVector(): Float32Array {
  const v = new Float32Array(DIM);
  for (let l = 0; l < LATENT; l++) {
    const w = gauss();
    const b = basis[l]!;
    for (let d = 0; d < DIM; d++) v[d]! += w * b[d]!;
  }
  let norm = 0;
  for (let d = 0; d < DIM; d++) {
    v[d]! += 0.5 * gauss();
    norm += v[d]! * v[d]!;
  }
  norm = Math.sqrt(norm);
  for (let d = 0; d < DIM; d++) v[d]! /= norm;
  return v;
}

const WORDS = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}`);
const sentence = () => Array.from({ length: 16 }, () => WORDS[Math.floor(rand() ** 2 * WORDS.length)]).join(" ");

function record(i: number): MemoryRecord {
  return {
    id: `20000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    short_id: i.toString(32).toUpperCase().padStart(10, "0"),
    content: sentence(),
    scope: `repo:bench-${i % SCOPES}`,
    repo: "",
    workspace: "",
    worktree_path: "",
    base_dir: "",
    source: "agent-inferred",
    category: "decision",
    tags: [`t${i % 50}`],
    actor: "",
    owner: "",
    visibility: "",
    created_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    summary: "",
    summary_source: "",
    summary_model: "",
    access_count: 0,
    kind: "",
    citations: [],
    supersedes: [],
  };
}

/** Hands the core a vector computed ahead of time, so search is timed without the model. */
class PrecomputedEmbedder implements Embedder {
  readonly identity = { provider: "local" as const, model: "bench", dim: DIM };
  next: Float32Array = new Float32Array(DIM);
  async embedDocuments(texts: string[]) {
    return texts.map(() => this.next);
  }
  async embedQuery() {
    return this.next;
  }
}

async function timeEach(label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  await fn(0);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  const ms = (performance.now() - t0) / n;
  console.log(`${label.padEnd(58)} ${ms.toFixed(2).padStart(8)} ms/query`);
  return ms;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-"));
  console.log(`engram recall bench: ${N} records, ${DIM}-d, ${SCOPES} scopes, k=${K}, ${Q} queries each\n`);
  try {
    let t = performance.now();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const BATCH = 5000;
    for (let start = 0; start < N; start += BATCH) {
      store.transaction(() => {
        for (let i = start; i < Math.min(N, start + BATCH); i++) store.writeRecord(record(i), synthVector());
      });
    }
    console.log(`load ${N} records (SQLite + FTS5)`.padEnd(58), `${((performance.now() - t) / 1000).toFixed(1).padStart(8)} s`);
    t = performance.now();
    await store.warm();
    console.log("build vector index (first start; saved as a snapshot)".padEnd(58), `${((performance.now() - t) / 1000).toFixed(1).padStart(8)} s`);
    await store.close();
    t = performance.now();
    const reopened = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await reopened.warm();
    console.log("reopen: mirror + vector snapshot load".padEnd(58), `${((performance.now() - t) / 1000).toFixed(1).padStart(8)} s\n`);

    const queries = Array.from({ length: Q }, () => ({ text: sentence().split(" ").slice(0, 4).join(" "), vector: synthVector() }));
    const pre = new PrecomputedEmbedder();
    const core = createCore({ store: reopened, embedder: pre, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
    const now = Math.floor(Date.now() / 1000);

    const local = sharedLocalEmbedder();
    await local.warmUp();
    const nl = ["how do we rotate the signing keys", "which database holds invoices", "why was the retry budget lowered", "naming rules for test files"];
    const embedMs = await timeEach("embed one query (local model, the floor of every search)", Q, (i) => local.embedQuery(`${nl[i % nl.length]} ${i}`));

    const storeCross = await timeEach("store.search, cross-spine (vector + lexical candidates)", Q, (i) =>
      reopened.search({ subject: ANONYMOUS, gate: GATE_ON, now }, queries[i % Q]!.vector, queries[i % Q]!.text, 32),
    );
    const storeScope = await timeEach("store.search, one scope (1/10 of records)", Q, (i) =>
      reopened.search({ subject: ANONYMOUS, scope: "repo:bench-3", gate: GATE_ON, now }, queries[i % Q]!.vector, queries[i % Q]!.text, 32),
    );
    const coreCross = await timeEach("SearchMemories core, cross-spine, k=8 (no embedding)", Q, (i) => {
      pre.next = queries[i % Q]!.vector;
      return core.searchMemories(ANONYMOUS, { query: queries[i % Q]!.text, cross_spine: true, k: K }, "connect");
    });
    const coreScope = await timeEach("SearchMemories core, one scope, k=8 (no embedding)", Q, (i) => {
      pre.next = queries[i % Q]!.vector;
      return core.searchMemories(ANONYMOUS, { query: queries[i % Q]!.text, scope: "repo:bench-3", k: K }, "connect");
    });

    console.log(`\nratios against embedding one query (same run):`);
    for (const [label, ms] of [
      ["store.search cross-spine", storeCross],
      ["store.search one scope", storeScope],
      ["core search cross-spine", coreCross],
      ["core search one scope", coreScope],
    ] as const) {
      console.log(`  ${label.padEnd(28)} ${(ms / embedMs).toFixed(2)}x of the embedding time (+${ms.toFixed(2)} ms)`);
    }
    await reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
