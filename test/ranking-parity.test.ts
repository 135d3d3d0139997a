import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCore, DEFAULT_LIMITS, silentLogger, type Core } from "../src/core/index.js";
import { ANONYMOUS } from "../src/model/subject.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import type { Store } from "../src/store/store.js";
import { DitheredEmbedder } from "./helpers/dithered-embedder.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

/**
 * Both stores rank one fixture alike: 200 records and 30 queries through the
 * core's ranking, each store's top 10 compared. They may differ by at most
 * MAX_SWAPS over all queries, counted as pairs the two orders disagree on plus
 * records only one list holds: float rounding (f32 vectors in the embedded
 * index, JSON doubles in Qdrant) can flip a near tie, nothing more.
 */
const MAX_SWAPS = 3;

const DIM = 64;
const NOW = new Date("2026-06-01T12:00:00.000Z");

const WORDS = (
  "deploy release pipeline rollback database postgres migration index cache redis queue worker retry timeout " +
  "token auth session cookie header proxy nginx tls certificate bucket upload image resize thumbnail search " +
  "ranking vector embedding model tokenizer stemming painting painted hiking camping festival garden recipe " +
  "budget invoice billing customer support ticket escalation oncall pager alert dashboard metric latency"
).split(" ");

/** A deterministic generator, so every run and both stores see the same fixture. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function fixture(): { records: { content: string; summary: string; tags: string[] }[]; queries: string[] } {
  const rnd = lcg(7);
  // Zipf-like: early words are common, late ones rare, so term weights matter.
  const word = () => WORDS[Math.floor(WORDS.length * rnd() ** 2)]!;
  const records = Array.from({ length: 200 }, (_, i) => {
    const n = 4 + Math.floor(rnd() * 20);
    // Every fifth note asks a question, so the question's lift and loss are compared too.
    const content = `note ${i}: ${Array.from({ length: n }, word).join(" ")}${i % 5 === 0 ? "?" : ""}`;
    return { content, summary: i % 4 === 0 ? `${word()} ${word()}` : "", tags: i % 3 === 0 ? [word()] : [] };
  });
  const queries = Array.from({ length: 30 }, () => Array.from({ length: 2 + Math.floor(rnd() * 4) }, word).join(" "));
  return { records, queries };
}

type Side = { store: Store; core: Core };

function swaps(a: readonly string[], b: readonly string[]): number {
  const inB = new Map(b.map((x, i) => [x, i]));
  let n = a.filter((x) => !inB.has(x)).length;
  const shared = a.filter((x) => inB.has(x));
  for (let i = 0; i < shared.length; i++) for (let j = i + 1; j < shared.length; j++) if (inB.get(shared[i]!)! > inB.get(shared[j]!)!) n++;
  return n;
}

describe("the embedded and the Qdrant store rank one fixture alike", () => {
  const { records, queries } = fixture();
  let fake: QdrantFake;
  let dir: string;
  let sides: Side[];

  beforeAll(async () => {
    fake = await startQdrantFake({ warn: () => {} });
    dir = mkdtempSync(join(tmpdir(), "engram-parity-"));
    const stores: Store[] = [EmbeddedStore.open({ dataDir: dir, dim: DIM }), await QdrantStore.open({ url: fake.url, collection: QdrantStore.uniqueCollection("parity"), dim: DIM })];
    // Each side's clock moves a second per reading, so both stores hold the records in one storage order, as a real clock gives.
    sides = stores.map((store) => {
      let tick = 0;
      const now = () => new Date(NOW.getTime() + 1000 * tick++);
      return { store, core: createCore({ store, embedder: new DitheredEmbedder(DIM), limits: DEFAULT_LIMITS, now, log: silentLogger }) };
    });
    for (const { core } of sides) {
      // Idempotency keys give each record the same id in both stores: the same records, so ties may go by id alike.
      for (const [i, r] of records.entries()) {
        await core.storeMemory(ANONYMOUS, { ...r, scope: "repo:parity", source: "user-said", category: "decision", idempotency_key: `parity-${i}` });
      }
    }
  }, 120_000);

  afterAll(async () => {
    for (const { store } of sides ?? []) await store.close();
    expect(fake.schemaViolations).toEqual([]);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`differs by at most ${MAX_SWAPS} swaps over 30 queries' top 10`, async () => {
    let total = 0;
    for (const query of queries) {
      const [embedded, qdrant] = await Promise.all(
        sides.map(async ({ core }) => (await core.searchMemories(ANONYMOUS, { query, scope: "repo:parity", k: 10, full: true }, "connect")).memories),
      );
      expect(embedded).toHaveLength(10);
      expect(qdrant).toHaveLength(10);
      total += swaps(embedded!.map((m) => m.content ?? ""), qdrant!.map((m) => m.content ?? ""));
    }
    expect(total).toBeLessThanOrEqual(MAX_SWAPS);
  });

  it("returns hits in descending score order on both stores", async () => {
    for (const { core } of sides) {
      for (const query of queries.slice(0, 10)) {
        const scores = (await core.searchMemories(ANONYMOUS, { query, scope: "repo:parity", k: 20 }, "connect")).memories.map((m) => m.score!);
        expect(scores.length).toBeGreaterThan(1);
        for (let i = 1; i < scores.length; i++) expect(scores[i - 1]!).toBeGreaterThanOrEqual(scores[i]!);
      }
    }
  });

  it("weighs a term written after a search asked for it, on both stores", async () => {
    for (const { store, core } of sides) {
      expect(await store.termWeights(["quokka"])).toEqual(new Map());
      const { id } = await core.storeMemory(ANONYMOUS, { content: "The quokka is a small wallaby.", scope: "repo:later", source: "user-said", category: "decision" });
      expect([...(await store.termWeights(["quokka"])).keys()]).toEqual(["quokka"]);
      await core.deleteMemory(ANONYMOUS, { id });
    }
  });

  it("gives every query term the same weight on both stores", async () => {
    const terms = ["deploy", "latenc", "paint", "note", "zyzzyva"];
    const [a, b] = await Promise.all(sides.map(({ store }) => store.termWeights(terms)));
    expect([...a!.keys()].sort()).toEqual([...b!.keys()].sort());
    expect(a!.has("zyzzyva")).toBe(false);
    for (const [t, w] of a!) expect(b!.get(t)).toBeCloseTo(w, 5);
  });
});
