/**
 * Bulk ingestion on a real server (embedded store on a temp dir, the default
 * pooled local embedder), all in one run: short records stored one at a time
 * through Connect with 4 in flight, the same kind of records through
 * StoreMemories batches, /healthz p99 sampled while the batches run, and the
 * physical reference: the embedder pool's own throughput with no server,
 * for each job size the batched path could use (1 to 64 texts per call).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { serve } from "../../src/app.js";
import { EMBED_CHUNK, silentLogger } from "../../src/core/index.js";
import { sharedLocalEmbedder } from "../../src/embed/index.js";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { prose } from "./prose.js";

const ONE_AT_A_TIME = Number(process.env.ENGRAM_BENCH_BULK_SINGLE ?? 160);
const BULK = Number(process.env.ENGRAM_BENCH_BULK_RECORDS ?? 768);
const BATCH = 128;
const BATCHES_IN_FLIGHT = 2;
const SWEEP = [1, 8, 16, 32, 64];
const SWEEP_TEXTS = 64;
const HEALTHZ_GOAL_MS = 50;
const RATIO_GOAL = 4;

/** A short dialog turn: 60 to 180 bytes of prose. */
const turn = (i: number) => prose(60 + ((i * 37) % 121), i + 1);

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
  const embedder = sharedLocalEmbedder();
  const running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dataDir }, embedder, log: silentLogger });
  try {
    await embedder.warmUp();
    const url = running.server.url;
    const client = createClient(EngramService, createConnectTransport({ baseUrl: url, httpVersion: "1.1" }));
    const rec = (i: number, scope: string) => ({ content: turn(i), scope, source: "user-said", category: "decision" });
    await client.storeMemory(rec(0, "bench:warm")); // JIT and connection warm-up, not measured

    // The physical reference: the pool alone, no server, one job of `size` texts at a time.
    const sweep = new Map<number, number>();
    for (const size of SWEEP) {
      const texts = Array.from({ length: SWEEP_TEXTS }, (_, i) => turn(10_000 * size + i));
      const jobs = Array.from({ length: SWEEP_TEXTS / size }, (_, j) => async () => void (await embedder.embedDocuments(texts.slice(j * size, (j + 1) * size))));
      sweep.set(size, SWEEP_TEXTS / (await timed(jobs, 1)));
    }

    const single = Array.from({ length: ONE_AT_A_TIME }, (_, i) => async () => void (await client.storeMemory(rec(100_000 + i, "bench:single"))));
    const singleRate = ONE_AT_A_TIME / (await timed(single, 4));

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
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const bulkSeconds = await timed(batches, BATCHES_IN_FLIGHT);
    bulkDone = true;
    await sampler;
    const bulkRate = (BULK - refused) / bulkSeconds;
    const reference = sweep.get(EMBED_CHUNK) ?? Math.max(...sweep.values());
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
        reference: `pool, jobs of ${EMBED_CHUNK} texts: ${reference.toFixed(1)} texts/s (${embedder.workers} worker(s))`,
        ratio: bulkRate / reference,
        goal: ">= 0.8x",
        met: bulkRate / reference >= 0.8,
      },
      {
        measure: "/healthz p99 while StoreMemories batches run",
        value: `${healthzP99.toFixed(1)} ms p99 of ${healthz.length}`,
        reference: "",
        goal: `<= ${HEALTHZ_GOAL_MS} ms`,
        met: healthzP99 <= HEALTHZ_GOAL_MS,
      },
    ];
    const one = sweep.get(1)!;
    for (const [size, rate] of sweep) {
      rows.push({
        measure: `embedder pool alone, jobs of ${size} short text(s)${size === EMBED_CHUNK ? " (StoreMemories' chunk)" : ""}`,
        value: `${rate.toFixed(1)} texts/s`,
        reference: `jobs of 1: ${one.toFixed(1)} texts/s`,
        ratio: rate / one,
        goal: "curve",
        met: true,
      });
    }
    return rows;
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
