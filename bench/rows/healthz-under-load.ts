/**
 * /healthz p99 on a real server (embedded store on a temp dir, the default
 * pooled local embedder) while 8 clients store 64 KiB contents in a loop,
 * next to /healthz p99 on the same server idle, in the same run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { serve } from "../../src/app.js";
import { silentLogger } from "../../src/core/index.js";
import { sharedLocalEmbedder } from "../../src/embed/index.js";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { prose } from "./prose.js";

const CLIENTS = 8;
const SAMPLES = Number(process.env.ENGRAM_BENCH_HEALTHZ_SAMPLES ?? 200);
const GOAL_MS = 50;

function p99(ms: number[]): number {
  const s = [...ms].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)]!;
}

async function healthzSamples(url: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(`${url}/healthz`);
    await res.arrayBuffer();
    out.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  return out;
}

export const healthzUnderLoad: BenchSection = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-bench-healthz-"));
  const embedder = sharedLocalEmbedder();
  const running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dataDir }, embedder, log: silentLogger });
  try {
    await embedder.warmUp();
    const url = running.server.url;
    await healthzSamples(url, 20); // connection and JIT warm-up, not measured
    const idle = await healthzSamples(url, SAMPLES);

    const client = createClient(EngramService, createConnectTransport({ baseUrl: url, httpVersion: "1.1" }));
    let stop = false;
    let stored = 0;
    let refused = 0;
    const writers = Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; !stop; i++) {
        try {
          await client.storeMemory({ content: prose(65536, c * 100_000 + i), scope: "bench:load", source: "user-said", category: "decision" });
          stored++;
        } catch {
          refused++;
        }
      }
    });
    // Let every writer get a request in flight before sampling.
    await new Promise((r) => setTimeout(r, 500));
    const t = performance.now();
    const loaded = await healthzSamples(url, SAMPLES);
    const seconds = (performance.now() - t) / 1000;
    stop = true;
    await Promise.all(writers);

    const idleP99 = p99(idle);
    const loadedP99 = p99(loaded);
    return [
      {
        measure: `/healthz p99 while ${CLIENTS} clients store 64 KiB contents in a loop`,
        value: `${loadedP99.toFixed(1)} ms p99 (${stored} stored, ${refused} refused, ${(stored / seconds).toFixed(1)}/s, ${embedder.workers} worker(s))`,
        reference: `idle /healthz ${idleP99.toFixed(1)} ms p99`,
        ratio: loadedP99 / idleP99,
        goal: `<= ${GOAL_MS} ms`,
        met: loadedP99 <= GOAL_MS,
      },
    ] satisfies BenchRow[];
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
