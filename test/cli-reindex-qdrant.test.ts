/**
 * `engram reindex` end to end with ENGRAM_QDRANT_URL: the real binary against
 * an in-process Qdrant fake (every request checked against Qdrant's
 * schemas), re-embedding through a loopback OpenAI-compatible endpoint whose
 * two models differ in name and dimension. The collection is seeded in
 * process, as a server on the first model would have written it.
 */
import { createServer, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureEmbedderIdentity } from "../src/app.js";
import { EXIT } from "../src/argerror/index.js";
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger } from "../src/core/index.js";
import type { Embedder } from "../src/embed/index.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { runEngram } from "./helpers/run-engram.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

/** Bag-of-words hashing: texts sharing words point the same way, at any dimension. */
function embed(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) {
    let h = 2166136261;
    for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    v[h % dim]! += 1;
  }
  v[0]! += 0.01;
  return v;
}

const ALPHA = { model: "alpha-embed", dim: 24 };
const BETA = { model: "beta-embed", dim: 40 };
const key = (e: { model: string; dim: number }) => `openai:${e.model}:${e.dim}`;

/** The same model in process, for seeding and for searching after the run. */
function inProcess(e: { model: string; dim: number }): Embedder {
  const vec = (t: string) => Float32Array.from(embed(t, e.dim));
  return {
    identity: { provider: "openai", model: e.model, dim: e.dim },
    embedDocuments: async (texts: string[]) => texts.map(vec),
    embedQuery: async (text: string) => vec(text),
  } as Embedder;
}

const CONTENTS = ["billing runs on postgres", "deploys happen on tuesdays", "file names are kebab-case", "the cache is redis", "logs ship to loki"];

let embeddings: Server;
let embeddingsUrl = "";
const calls = new Map<string, number>();
let fake: QdrantFake;

beforeAll(async () => {
  embeddings = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d));
    req.on("end", () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      calls.set(model, (calls.get(model) ?? 0) + 1);
      const dim = model === ALPHA.model ? ALPHA.dim : BETA.dim;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ object: "list", model, data: input.map((t, index) => ({ object: "embedding", index, embedding: embed(t, dim) })) }));
    });
  });
  await new Promise<void>((r) => embeddings.listen(0, "127.0.0.1", r));
  embeddingsUrl = `http://127.0.0.1:${(embeddings.address() as { port: number }).port}`;
});

afterAll(async () => {
  embeddings.closeAllConnections();
  await new Promise((r) => embeddings.close(r));
});

afterEach(async () => {
  expect(fake.schemaViolations).toEqual([]);
  await fake.close();
});

/** A fake Qdrant whose collection a server on ALPHA has written CONTENTS into. */
async function seeded(): Promise<void> {
  fake = await startQdrantFake({ warn: () => {} });
  const store = await QdrantStore.open({ url: fake.url, dim: ALPHA.dim });
  const alpha = inProcess(ALPHA);
  await ensureEmbedderIdentity(store, alpha);
  const core = createCore({ store, embedder: alpha, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
  for (const content of CONTENTS) await core.storeMemory(ANONYMOUS, { content, scope: "repo:r", source: "user-said", category: "decision" });
  await store.close();
}

const betaEnv = (extra: Record<string, string> = {}) => ({
  ENGRAM_QDRANT_URL: fake.url,
  ENGRAM_OPENAI_BASE_URL: embeddingsUrl,
  ENGRAM_EMBED_MODEL: BETA.model,
  ENGRAM_EMBED_DIM: String(BETA.dim),
  ENGRAM_DATA_DIR: "/nonexistent/engram-reindex-qdrant",
  ...extra,
});

describe("engram reindex with ENGRAM_QDRANT_URL", { timeout: 120_000 }, () => {
  it("previews without embedding anything, then --apply re-embeds into the next generation with progress lines, and a store on the new embedder serves and finds every record", async () => {
    await seeded();
    const preview = await runEngram(["reindex", "--output", "json"], betaEnv());
    expect(preview.code, preview.stderr).toBe(EXIT.ok);
    expect(preview.stderr).toBe("");
    expect(JSON.parse(preview.stdout)).toEqual({
      dry_run: true,
      from_identity: key(ALPHA),
      to_identity: key(BETA),
      records: 5,
      pending: 5,
      reembedded: 0,
      already_done: 0,
    });
    expect(calls.get(BETA.model) ?? 0).toBe(0);
    expect(fake.state.aliases.get("engram")).toBe("engram-g1");

    const applied = await runEngram(["reindex", "--apply", "--batch-size", "2", "--output", "json"], betaEnv({ ENGRAM_PROGRESS: "always" }));
    expect(applied.code, applied.stderr).toBe(EXIT.ok);
    expect(JSON.parse(applied.stdout)).toEqual({
      dry_run: false,
      from_identity: key(ALPHA),
      to_identity: key(BETA),
      records: 5,
      pending: 5,
      reembedded: 5,
      already_done: 0,
    });
    const lines = applied.stderr.trimEnd().split("\n");
    for (const line of lines) expect(line).toMatch(/^engram: reembedded \d\/5 \(\d+\/s\)$/);
    expect(lines[0]).toMatch(/^engram: reembedded 0\/5 /);
    expect(lines.at(-1)).toMatch(/^engram: reembedded 5\/5 /);
    expect(fake.state.aliases.get("engram")).toBe("engram-g2");
    expect([...fake.state.collections.keys()]).toEqual(["engram-g2"]);

    const beta = inProcess(BETA);
    const store = await QdrantStore.open({ url: fake.url, dim: BETA.dim });
    try {
      await expect(ensureEmbedderIdentity(store, beta)).resolves.toBeUndefined();
      const core = createCore({ store, embedder: beta, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
      const hits = await core.searchMemories(ANONYMOUS, { query: "which cache, redis?", scope: "repo:r", k: 1 }, "connect");
      expect(hits.memories[0]?.summary).toBe("the cache is redis");
      expect((await store.schemaHistogram()).total).toBe(5);
    } finally {
      await store.close();
    }

    const again = await runEngram(["reindex", "--output", "json"], betaEnv());
    expect(JSON.parse(again.stdout)).toMatchObject({ from_identity: key(BETA), records: 5, pending: 0 });
  });

  it("a --timeout that runs out after a batch is exit 6, leaves the alias on the old generation, and a rerun finishes the rest", async () => {
    await seeded();
    // The first write into the next generation is held past the 1ms budget, so the check after it must stop the run.
    const hold = fake.holds.hold({ operation: "upsert_points", collection: "engram-g2" }, { phase: "before-response" });
    const running = runEngram(["reindex", "--apply", "--batch-size", "1", "--timeout", "1ms", "--output", "json"], betaEnv());
    await hold.reached;
    await new Promise((r) => setTimeout(r, 20));
    hold.release();
    const stopped = await running;
    expect(stopped.code).toBe(EXIT.timeout);
    expect(stopped.stdout).toBe("");
    expect(stopped.stderr).toBe(
      "engram: --timeout ran out; the 1 record(s) re-embedded into the next generation stay there and servers still serve the old one; " +
        "run `engram reindex --apply` again to continue\n",
    );
    expect(fake.state.aliases.get("engram")).toBe("engram-g1");

    const rerun = await runEngram(["reindex", "--apply", "--output", "json"], betaEnv());
    expect(rerun.code, rerun.stderr).toBe(EXIT.ok);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ records: 5, pending: 4, reembedded: 4, already_done: 1 });
    expect(fake.state.aliases.get("engram")).toBe("engram-g2");
  });

  it("an embedder that cannot be reached stops --apply with exit 5 before anything is written: no next generation, and the old embedder still serves", async () => {
    await seeded();
    const freed = createServer();
    await new Promise<void>((r) => freed.listen(0, "127.0.0.1", r));
    const dead = `http://127.0.0.1:${(freed.address() as { port: number }).port}`;
    await new Promise((r) => freed.close(r));

    const run = await runEngram(["reindex", "--apply", "--output", "json"], betaEnv({ ENGRAM_OPENAI_BASE_URL: dead }));
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT.unavailable, stdout: "" });
    expect(run.stderr).toMatch(
      /^engram: openai-compatible embedder: POST http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings could not be reached \(ECONNREFUSED\); nothing was written and the store is as it was\n$/,
    );
    expect(fake.state.aliases.get("engram")).toBe("engram-g1");
    expect([...fake.state.collections.keys()]).toEqual(["engram-g1"]);
    const store = await QdrantStore.open({ url: fake.url, dim: ALPHA.dim });
    try {
      await expect(ensureEmbedderIdentity(store, inProcess(ALPHA))).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("an unreachable Qdrant is exit 5 with the store's unavailable text, and nothing on stdout", async () => {
    fake = await startQdrantFake({ warn: () => {} });
    const probe = await QdrantStore.open({ url: "http://127.0.0.1:1", dim: BETA.dim }).catch((e: unknown) => e);
    const run = await runEngram(["reindex", "--apply", "--output", "json"], betaEnv({ ENGRAM_QDRANT_URL: "http://127.0.0.1:1" }));
    expect(run.code).toBe(EXIT.unavailable);
    expect(run.stdout).toBe("");
    // The same words a server start or `engram import` gives for a Qdrant it cannot write to.
    expect(run.stderr).toBe(`engram: ${(probe as Error).message}\n`);
    expect(run.stderr).toBe("engram: unavailable: the store cannot accept writes now; retry later\n");
    const preview = await runEngram(["reindex", "--output", "json"], betaEnv({ ENGRAM_QDRANT_URL: "http://127.0.0.1:1" }));
    expect(preview.code).toBe(EXIT.unavailable);
    expect(preview.stderr).toBe("engram: unavailable: the store cannot be read now; retry later\n");
  });
});
