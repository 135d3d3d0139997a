/**
 * A long list of texts is embedded in jobs on the worker pool: one job per
 * worker at a time, vectors in input order, and a full queue still answers
 * unavailable, for a long list and for every record of a StoreMemories batch.
 */
import { afterAll, describe, expect, it } from "vitest";
import { unavailableText } from "../src/argerror/index.js";
import { PooledLocalEmbedder } from "../src/embed/index.js";
import { DEFAULT_JOB_TEXTS } from "../src/embed/worker-pool.js";
import { release } from "./fixtures/gated-model.js";
import { startTestServer } from "./helpers/engram-server.js";

const GATED_MODEL = new URL("./fixtures/gated-model.ts", import.meta.url).href;

/** Resolves once `probe` holds, checking on every turn of the event loop (no clock involved). */
async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((r) => setImmediate(r));
}

/** The gated model marks the text "text n" with a 1 at dimension n. */
const marked = (v: Float32Array) => v.indexOf(Math.max(...v));

const pools: PooledLocalEmbedder[] = [];
afterAll(async () => {
  for (const p of pools) await p.close();
});

function gatedPool(workers: number, queue: number): { pool: PooledLocalEmbedder; gate: SharedArrayBuffer } {
  const gate = new SharedArrayBuffer(8);
  const pool = new PooledLocalEmbedder({ workers, queue, loader: { module: GATED_MODEL, data: gate } });
  pools.push(pool);
  return { pool, gate };
}

describe("a list longer than one job", () => {
  it("runs one job per worker at a time, queues none of its own, and answers in input order", async () => {
    const { pool, gate } = gatedPool(2, 4);
    const texts = Array.from({ length: 2 * DEFAULT_JOB_TEXTS + 16 }, (_, i) => `text ${i}`);
    const vectors = pool.embedDocuments(texts);
    await until(() => pool.pressure().running === 2);
    expect(pool.pressure()).toEqual({ running: 2, queued: 0 });
    release(gate);
    const got = await vectors;
    expect(got).toHaveLength(texts.length);
    expect(got.map(marked)).toEqual(texts.map((_, i) => i));
  });

  it("is refused as unavailable when the queue cannot take its next job", async () => {
    const { pool, gate } = gatedPool(1, 0);
    const busy = pool.embedDocuments(["holding the only worker"]);
    await until(() => pool.pressure().running === 1);
    await expect(pool.embedDocuments(Array.from({ length: DEFAULT_JOB_TEXTS * 3 }, (_, i) => `t${i}`))).rejects.toThrow(unavailableText("embedder_at_capacity"));
    release(gate);
    expect(await busy).toHaveLength(1);
  });
});

describe("StoreMemories on a full pool", () => {
  it("answers every record unavailable with the fixed text, and writes none of them", async () => {
    const { pool, gate } = gatedPool(1, 0);
    const server = await startTestServer({ embedder: pool });
    try {
      const client = server.client();
      const rec = (content: string) => ({ content, scope: "repo:full-batch", source: "user-said", category: "decision" });
      const held = client.storeMemory(rec("in the worker"));
      await until(() => pool.pressure().running === 1);
      const res = await client.storeMemories({ memories: [rec("one"), rec("two")] });
      expect(res.results.map((r) => [r.error?.code, r.error?.message])).toEqual([
        ["unavailable", unavailableText("embedder_at_capacity")],
        ["unavailable", unavailableText("embedder_at_capacity")],
      ]);
      release(gate);
      await held;
      expect(Number((await client.listMemories({ scope: "repo:full-batch" })).total)).toBe(1);
    } finally {
      await server.close();
    }
  });
});
