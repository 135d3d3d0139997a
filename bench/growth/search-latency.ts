/**
 * SearchMemories through the core at k=8 over the grown store, one scope
 * (a tenth of the records) and cross-spine, with each query's vector
 * computed ahead of time so the figure is the search alone, as the
 * search-and-start rows time it: p50 and p95 over QUERIES calls per side
 * after a warm-up. Beside the wall time, the p50 of each call's CPU time
 * (this process, every thread): on a shared machine the wall time carries
 * other people's load, which can move between two sizes of one run.
 */
import { performance } from "node:perf_hooks";
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger } from "../../src/core/index.js";
import type { Embedder } from "../../src/embed/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { clustered, mulberry32 } from "../../test/helpers/synthetic-vectors.js";
import { GROWTH_DIM, sentence } from "./records.js";

const QUERIES = Number(process.env.ENGRAM_BENCH_GROWTH_QUERIES ?? 200);
const WARM_UP = 20;
const K = 8;

/** Hands the core a vector computed ahead of time, so the search is timed without the model. */
class PrecomputedEmbedder implements Embedder {
  readonly identity = { provider: "local" as const, model: "bench", dim: GROWTH_DIM };
  next: Float32Array = new Float32Array(GROWTH_DIM);
  async embedDocuments(texts: string[]) {
    return texts.map(() => this.next);
  }
  async embedQuery() {
    return this.next;
  }
}

export type Percentiles = { p50: number; p95: number; cpuP50: number };
export type SearchFigures = { scope: Percentiles; cross: Percentiles };

function percentiles(ms: number[], cpuMs: number[]): Percentiles {
  const s = [...ms].sort((a, b) => a - b);
  const c = [...cpuMs].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length * 0.5)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]!, cpuP50: c[Math.floor(c.length * 0.5)]! };
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<Percentiles> {
  for (let i = 0; i < Math.min(n, WARM_UP); i++) await fn(i);
  const ms: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i < n; i++) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    await fn(i);
    ms.push(performance.now() - t);
    const used = process.cpuUsage(cpu);
    cpuMs.push((used.user + used.system) / 1000);
  }
  return percentiles(ms, cpuMs);
}

export async function searchLatency(dir: string): Promise<SearchFigures> {
  const store = EmbeddedStore.open({ dataDir: dir, dim: GROWTH_DIM });
  try {
    await store.warm();
    const draw = clustered(777, GROWTH_DIM);
    const rand = mulberry32(2026);
    const queries = Array.from({ length: QUERIES }, () => ({ text: sentence(rand, 4), vector: draw() }));
    const pre = new PrecomputedEmbedder();
    const core = createCore({ store, embedder: pre, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
    const scope = await timed(QUERIES, (i) => {
      pre.next = queries[i]!.vector;
      return core.searchMemories(ANONYMOUS, { query: queries[i]!.text, scope: "repo:growth-3", k: K }, "connect");
    });
    const cross = await timed(QUERIES, (i) => {
      pre.next = queries[i]!.vector;
      return core.searchMemories(ANONYMOUS, { query: queries[i]!.text, cross_spine: true, k: K }, "connect");
    });
    return { scope, cross };
  } finally {
    await store.close();
  }
}
