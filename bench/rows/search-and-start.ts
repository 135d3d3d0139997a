/**
 * Goal rows for search latency and start time over a large embedded store:
 *
 *  - SearchMemories through the core at k=8, one scope (a tenth of the
 *    records) and cross-spine, each query embedded by the local model (its
 *    worker pool, as a server runs it) while the search does what needs no
 *    vector. The embedder then hands the core a vector drawn ahead of time,
 *    like the records', so the lanes see the bench's distribution and only
 *    the model's time is real. Each search is paired with embedding its
 *    query's text alone, the two taking turns, and the figure is the median
 *    of their differences: what a search adds to embedding its query. Most candidates of these
 *    searches are records met for the first time.
 *  - The same, other queries, with the vector given at once (curve rows, no
 *    goal): all of a search's own work, none of it hidden behind the model.
 *  - `node bin/engram.js serve` spawned over a prepared data directory (its
 *    vector snapshot saved, as any earlier clean stop leaves it), timed until
 *    /healthz answers 200, and until /readyz does.
 *
 *   ENGRAM_BENCH_RECORDS  records to load (default 100000)
 *   ENGRAM_BENCH_QUERIES  queries per measurement (default 50)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger, type MemoryRecord } from "../../src/core/index.js";
import { sharedLocalEmbedder, type Embedder } from "../../src/embed/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { clustered, mulberry32 } from "../../test/helpers/synthetic-vectors.js";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { spawnServe } from "../serve-child.js";

const N = Number(process.env.ENGRAM_BENCH_RECORDS ?? 100_000);
const Q = Number(process.env.ENGRAM_BENCH_QUERIES ?? 50);
const DIM = 512;
const SCOPES = 10;
const K = 8;
const WARM_UP = 20;
const SEARCH_GOAL_MS = 5;
const START_GOAL_MS = 3000;

const rand = mulberry32(20261201);
const WORDS = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}`);
const sentence = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rand() ** 2 * WORDS.length)]).join(" ");

function record(i: number): MemoryRecord {
  return {
    id: `40000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    short_id: i.toString(32).toUpperCase().padStart(10, "0"),
    content: sentence(16),
    scope: `repo:bench-${i % SCOPES}`,
    repo: "", workspace: "", worktree_path: "", base_dir: "",
    source: "agent-inferred", category: "decision", tags: [`t${i % 50}`], actor: "", owner: "", visibility: "",
    created_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    summary: "", summary_source: "", summary_model: "", access_count: 0, kind: "", citations: [], supersedes: [],
  };
}

/**
 * Hands the core a vector drawn ahead of time. With `model` set, a query is
 * first embedded by it for real (the vector it makes is not used); words for
 * soft term matches get the drawn vector at once either way.
 */
class PrecomputedEmbedder implements Embedder {
  readonly identity = { provider: "local" as const, model: "bench", dim: DIM };
  next: Float32Array = new Float32Array(DIM);
  model: Embedder | undefined;
  async embedDocuments(texts: string[]) {
    return texts.map(() => this.next);
  }
  async embedQuery(text: string) {
    if (this.model) await this.model.embedQuery(text);
    return this.next;
  }
}

const median = (times: number[]) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Median of n calls, after WARM_UP untimed ones so the JIT and first page touches are not in the figure. */
async function p50(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(n, WARM_UP); i++) await fn(i);
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await timed(() => fn(i)));
  return median(times);
}

/**
 * What a call of `a` takes beyond one of `b` (the median of their paired
 * differences), and the median of `b`: n pairs, each goes first every other
 * time, after WARM_UP untimed pairs. Pairing keeps the machine's drift out
 * of the difference.
 */
async function p50Beyond(n: number, a: (i: number) => Promise<unknown>, b: (i: number) => Promise<unknown>): Promise<[number, number]> {
  for (let i = 0; i < Math.min(n, WARM_UP); i++) {
    await a(i);
    await b(i);
  }
  const beyond: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i++) {
    const first = i % 2 === 0 ? await timed(() => a(i)) : 0;
    const other = await timed(() => b(i));
    const ta = i % 2 === 1 ? await timed(() => a(i)) : first;
    beyond.push(ta - other);
    tb.push(other);
  }
  return [median(beyond), median(tb)];
}

/** Loads N records and lets the store build and save its index, as a server that ran before would have. */
async function prepare(dir: string): Promise<void> {
  const draw = clustered(4242, DIM);
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  let t = performance.now();
  for (let start = 0; start < N; start += 5000) {
    store.transaction(() => {
      for (let i = start; i < Math.min(N, start + 5000); i++) store.writeRecord(record(i), draw());
    });
  }
  console.log(`  prepared ${N} records in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  await store.warm();
  await store.close();
  console.log(`  first index build (background slices) and snapshot in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

async function searchRows(dir: string): Promise<BenchRow[]> {
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  await store.warm();
  const draw = clustered(777, DIM);
  const queries = Array.from({ length: 2 * Q }, () => ({ text: sentence(4), vector: draw() }));
  const pre = new PrecomputedEmbedder();
  const core = createCore({ store, embedder: pre, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });

  const search = (at: number, where: { scope: string } | { cross_spine: true }) => (i: number) => {
    pre.next = queries[at + i]!.vector;
    return core.searchMemories(ANONYMOUS, { query: queries[at + i]!.text, ...where, k: K }, "connect");
  };
  const oneScope = { scope: "repo:bench-3" };
  const crossSpine = { cross_spine: true as const };
  // The vector given first: once it has run, the model's worker may stay
  // busy for a while after each embed and slow what runs beside it.
  const scopeAll = await p50(Q, search(Q, oneScope));
  const crossAll = await p50(Q, search(Q, crossSpine));
  const local = sharedLocalEmbedder();
  await local.warmUp();
  pre.model = local;
  // The reference embeds the same query texts alone, taking turns with the searches.
  const alone = (i: number) => local.embedQuery(queries[i]!.text);
  const [scope, scopeEmbed] = await p50Beyond(Q, search(0, oneScope), alone);
  const [cross, crossEmbed] = await p50Beyond(Q, search(0, crossSpine), alone);
  await store.close();

  const thousands = `${Math.round(N / 1000)}k`;
  const measure = (what: string) => `SearchMemories p50 at ${thousands} records, ${what}, k=${K}`;
  const reference = (embed: number) => `embed one query (local model) ${embed.toFixed(2)} ms p50`;
  const row = (what: string, ms: number, embed: number): BenchRow => ({
    measure: measure(what),
    value: `embed + ${ms.toFixed(2)} ms`,
    reference: reference(embed),
    ratio: (embed + ms) / embed,
    goal: `<= embed + ${SEARCH_GOAL_MS} ms`,
    met: ms <= SEARCH_GOAL_MS,
  });
  // No embedding in these: the figure is the whole search, beside the same run's embedding.
  const curve = (what: string, ms: number, embed: number): BenchRow => ({
    measure: measure(what),
    value: `${ms.toFixed(2)} ms`,
    reference: reference(embed),
    ratio: ms / embed,
    goal: "curve",
    met: true,
  });
  const oneScopeRow = `one scope (${Math.round(N / SCOPES / 1000)}k)`;
  return [
    row(oneScopeRow, scope, scopeEmbed),
    row("cross-spine", cross, crossEmbed),
    curve(`${oneScopeRow}, the vector given at once`, scopeAll, scopeEmbed),
    curve("cross-spine, the vector given at once", crossAll, crossEmbed),
  ];
}

async function startRow(dir: string): Promise<BenchRow[]> {
  const { until, stderr, stop } = await spawnServe(dir, process.env, 20);
  try {
    const healthz = await until("/healthz", 120_000);
    const readyz = await until("/readyz", 600_000);
    const progress = stderr().split("\n").filter((l) => l.includes("vector index")).length;
    console.log(`  serve: /healthz 200 after ${healthz.toFixed(0)} ms, /readyz 200 after ${readyz.toFixed(0)} ms, ${progress} vector-index log lines`);
    return [
      {
        measure: `start over ${Math.round(N / 1000)}k records to /healthz 200`,
        value: `${(healthz / 1000).toFixed(2)} s`,
        reference: `/readyz 200 after ${(readyz / 1000).toFixed(2)} s`,
        goal: `<= ${START_GOAL_MS / 1000} s`,
        met: healthz <= START_GOAL_MS,
      },
    ];
  } finally {
    await stop();
  }
}

export const searchAndStart: BenchSection = async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-search-start-"));
  try {
    await prepare(dir);
    const search = await searchRows(dir);
    const start = await startRow(dir);
    return [...search, ...start];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

// Runnable on its own: npx tsx bench/rows/search-and-start.ts
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  for (const row of await searchAndStart()) console.log(JSON.stringify(row));
}
