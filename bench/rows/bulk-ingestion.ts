/**
 * Bulk ingestion on a real server (embedded store on a temp dir, the default
 * pooled local embedder), all in one run: short records stored one at a time
 * through Connect with 4 in flight, the same kind of records through
 * StoreMemories batches, /healthz p99 sampled while the batches run, and the
 * physical reference: the embedder pool's own throughput with no server,
 * for each job size the batched path could use (1 to 64 texts per call).
 * These machines are shared and noisy: every pair of figures brackets the
 * same stretch of the run, and only their ratios carry.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { serve } from "../../src/app.js";
import { EMBED_CHUNK, silentLogger } from "../../src/core/index.js";
import { PooledLocalEmbedder, sharedLocalEmbedder } from "../../src/embed/index.js";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { prose } from "./prose.js";

const ONE_AT_A_TIME = Number(process.env.ENGRAM_BENCH_BULK_SINGLE ?? 160);
const BULK = Number(process.env.ENGRAM_BENCH_BULK_RECORDS ?? 768);
const BATCH = 128;
const BATCHES_IN_FLIGHT = 2;
const SWEEP = [1, 8, 16, 32, 64];
const SWEEP_TEXTS = 128;
const SWEEP_ROUNDS = 3;
const HEALTHZ_GOAL_MS = 50;
const RATIO_GOAL = 4;

/** A short dialog turn: 60 to 180 bytes of prose. */
const turn = (i: number) => prose(60 + ((i * 37) % 121), i + 1);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

function p99(ms: number[]): number {
  const s = [...ms].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)] ?? 0;
}

/** Runs `jobs` with at most `width` in flight; returns the seconds it took. */
async function timed(jobs: (() => Promise<void>)[], width: number): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) await jobs[next++]!();
    }),
  );
  return (performance.now() - t) / 1000;
}

export const bulkIngestion: BenchSection = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-bench-bulk-"));
  // ENGRAM_BENCH_BULK_WORKERS runs the same rows on a pool of that many workers (default: the server's default).
  const workers = process.env.ENGRAM_BENCH_BULK_WORKERS;
  const embedder = workers === undefined ? sharedLocalEmbedder() : new PooledLocalEmbedder({ workers: Number(workers) });
  const running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dataDir }, embedder, log: silentLogger });
  try {
    await embedder.warmUp();
    const url = running.server.url;
    const client = createClient(EngramService, createConnectTransport({ baseUrl: url, httpVersion: "1.1" }));
    const rec = (i: number, scope: string) => ({ content: turn(i), scope, source: "user-said", category: "decision" });
    await client.storeMemory(rec(0, "bench:warm")); // JIT and connection warm-up, not measured

    // The physical reference: the pool alone, no server, a job of `size`
    // texts on every worker at once; rounds interleave the sizes so a load
    // that drifts during the run weighs on each alike, and the median round counts.
    const poolRate = async (size: number, salt: number): Promise<number> => {
      const texts = Array.from({ length: SWEEP_TEXTS }, (_, i) => turn(salt + i));
      const jobs = Array.from({ length: SWEEP_TEXTS / size }, (_, j) => async () => void (await embedder.embedDocuments(texts.slice(j * size, (j + 1) * size))));
      return SWEEP_TEXTS / (await timed(jobs, embedder.workers));
    };
    const rounds = new Map<number, number[]>(SWEEP.map((size) => [size, []]));
    for (let round = 0; round < SWEEP_ROUNDS; round++) for (const size of SWEEP) rounds.get(size)!.push(await poolRate(size, 1_000_000 * (round + 1) + 1000 * size));
    const sweep = new Map([...rounds].map(([size, r]) => [size, median(r)]));

    // One at a time in two halves around the batches, and the pool's own rate
    // right before and after them: each pair brackets the same stretch of load.
    const single = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => async () => void (await client.storeMemory(rec(100_000 + from + i, "bench:single"))));
    const half = Math.floor(ONE_AT_A_TIME / 2);
    const singleSeconds = [await timed(single(0, half), 4)];
    const referenceRates = [await poolRate(EMBED_CHUNK, 5_000_000)];

    // The same probe on the idle server, for what the machine alone adds to a p99.
    const idleHealthz: number[] = [];
    for (let i = 0; i < 100; i++) {
      const t = performance.now();
      await (await fetch(`${url}/healthz`)).arrayBuffer();
      idleHealthz.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }

    let refused = 0;
    const batches = Array.from({ length: Math.ceil(BULK / BATCH) }, (_, b) => async () => {
      const memories = Array.from({ length: Math.min(BATCH, BULK - b * BATCH) }, (_, i) => rec(200_000 + b * BATCH + i, "bench:bulk"));
      const res = await client.storeMemories({ memories });
      refused += res.results.filter((r) => r.error !== undefined).length;
    });
    const healthz: number[] = [];
    let bulkDone = false;
    const sampler = (async () => {
      while (!bulkDone) {
        const t = performance.now();
        await (await fetch(`${url}/healthz`)).arrayBuffer();
        healthz.push(performance.now() - t);
        // Every 50 ms: the probe shares the process and its cores with the server it probes.
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const bulkSeconds = await timed(batches, BATCHES_IN_FLIGHT);
    bulkDone = true;
    await sampler;

    referenceRates.push(await poolRate(EMBED_CHUNK, 6_000_000));
    singleSeconds.push(await timed(single(half, ONE_AT_A_TIME - half), 4));
    const singleRate = ONE_AT_A_TIME / (singleSeconds[0]! + singleSeconds[1]!);
    const bulkRate = (BULK - refused) / bulkSeconds;
    const reference = (referenceRates[0]! + referenceRates[1]!) / 2;
    const healthzP99 = p99(healthz);

    const rows: BenchRow[] = [
      {
        measure: `StoreMemories, short records (batches of ${BATCH}, ${BATCHES_IN_FLIGHT} in flight, ${BULK} records, ${refused} refused)`,
        value: `${bulkRate.toFixed(1)} records/s`,
        reference: `StoreMemory one at a time, 4 in flight: ${singleRate.toFixed(1)} records/s`,
        ratio: bulkRate / singleRate,
        goal: `>= ${RATIO_GOAL}x`,
        met: bulkRate / singleRate >= RATIO_GOAL,
      },
      {
        measure: "StoreMemories against the embedder pool alone (no server)",
        value: `${bulkRate.toFixed(1)} records/s`,
        reference: `pool alone, jobs of ${EMBED_CHUNK} texts, just before and after: ${reference.toFixed(1)} texts/s (${embedder.workers} worker(s))`,
        ratio: bulkRate / reference,
        goal: ">= 0.8x",
        met: bulkRate / reference >= 0.8,
      },
      {
        // Any batched path embeds every record, so it cannot outrun the pool
        // alone: under 4x here, the 4x row cannot be met on this machine.
        measure: "the ceiling for the ratio above: the embedder pool alone over StoreMemory one at a time",
        value: `${reference.toFixed(1)} texts/s`,
        reference: `StoreMemory one at a time, 4 in flight: ${singleRate.toFixed(1)} records/s`,
        ratio: reference / singleRate,
        goal: `>= ${RATIO_GOAL}x`,
        met: reference / singleRate >= RATIO_GOAL,
      },
      {
        measure: "/healthz p99 while StoreMemories batches run",
        value: `${healthzP99.toFixed(1)} ms p99 of ${healthz.length}`,
        reference: `idle server ${p99(idleHealthz).toFixed(1)} ms p99 of ${idleHealthz.length}`,
        ratio: healthzP99 / p99(idleHealthz),
        goal: `<= ${HEALTHZ_GOAL_MS} ms`,
        met: healthzP99 <= HEALTHZ_GOAL_MS,
      },
    ];
    const one = sweep.get(1)!;
    for (const [size, rate] of sweep) {
      rows.push({
        measure: `embedder pool alone, jobs of ${size} short text(s)${size === EMBED_CHUNK ? " (StoreMemories' chunk)" : ""}`,
        value: `${rate.toFixed(1)} texts/s, median of ${SWEEP_ROUNDS}`,
        reference: `jobs of 1: ${one.toFixed(1)} texts/s`,
        ratio: rate / one,
        goal: "curve",
        met: true,
      });
    }
    return rows;
  } finally {
    await running.close();
    if (workers !== undefined) await embedder.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
