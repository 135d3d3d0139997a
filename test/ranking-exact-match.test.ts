import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLocomo } from "../bench/recall/locomo.js";
import { createCore, DEFAULT_LIMITS, silentLogger, type Core } from "../src/core/index.js";
import { embeddingText } from "../src/embed/embedder.js";
import { lexicalTerms } from "../src/model/lexical-terms.js";
import { ANONYMOUS } from "../src/model/subject.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import type { Store } from "../src/store/store.js";
import { DitheredEmbedder } from "./helpers/dithered-embedder.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

const DIM = 64;
const START = Date.parse("2026-06-01T12:00:00.000Z");
const LOCOMO = resolve("../shared/data/locomo/locomo-dev.json");

type Side = { name: string; store: Store; core: Core; embedder: DitheredEmbedder; setClock(ms: number): void };

/** Both stores, each with a clock the test sets, so both hold the records in one storage order. */
async function openSides(fake: QdrantFake, dir: string): Promise<Side[]> {
  const stores: [string, Store][] = [
    ["embedded", EmbeddedStore.open({ dataDir: dir, dim: DIM })],
    ["qdrant-fake", await QdrantStore.open({ url: fake.url, collection: QdrantStore.uniqueCollection("exact"), dim: DIM })],
  ];
  return stores.map(([name, store]) => {
    let clock = START;
    const embedder = new DitheredEmbedder(DIM);
    const core = createCore({ store, embedder, limits: DEFAULT_LIMITS, now: () => new Date(clock), log: silentLogger });
    return { name, store, core, embedder, setClock: (ms) => (clock = ms) };
  });
}

const sameText = (a: string, b: string) => lexicalTerms(a).join(" ") === lexicalTerms(b).join(" ");

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe("a search with a record's own words finds that record first", () => {
  let fake: QdrantFake;
  let dir: string;
  let sides: Side[];

  beforeAll(async () => {
    fake = await startQdrantFake({ warn: () => {} });
    dir = mkdtempSync(join(tmpdir(), "engram-exact-"));
    sides = await openSides(fake, dir);
  });

  afterAll(async () => {
    for (const { store } of sides ?? []) await store.close();
    expect(fake.schemaViolations).toEqual([]);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // A thousand records made of the same ten words, some asking questions, so every lift
  // (storage neighbours, a question before, feedback) has look-alikes to carry past the one searched for.
  it("in a store of a thousand records sharing the same ten words, each of 40 stored through the API is first for its own content, on both stores", async () => {
    const words = "deploy cache budget ticket garden queue token latency invoice harvest".split(" ");
    const rnd = lcg(11);
    const seen = new Set<string>();
    const text = () => {
      for (;;) {
        const t = Array.from({ length: 6 + Math.floor(rnd() * 6) }, () => words[Math.floor(rnd() * words.length)]).join(" ") + (rnd() < 0.2 ? "?" : ".");
        if (!seen.has(t)) return seen.add(t), t;
      }
    };
    const fillers = Array.from({ length: 1000 }, text);
    const targets = Array.from({ length: 40 }, text);
    for (const side of sides) {
      const vectors = await side.embedder.embedDocuments(fillers.map((t) => embeddingText(t, [])));
      const rows = fillers.map((content, i) => ({
        // Fillers are stored a second apart; the targets fall among them, one every 25.
        record: syntheticRecord(i, { content, scope: "repo:same", tags: [], created_at: new Date(START + i * 1000).toISOString() }),
        vector: vectors[i]!,
        version: CURRENT_SCHEMA_VERSION,
      }));
      for (let i = 0; i < rows.length; i += 500) await side.store.importBatch(rows.slice(i, i + 500));
      const ids: string[] = [];
      for (const [i, content] of targets.entries()) {
        side.setClock(START + i * 25_000 + 500);
        ids.push((await side.core.storeMemory(ANONYMOUS, { content, scope: "repo:same", source: "user-said", category: "decision" })).id);
      }
      let first = 0;
      for (const [i, query] of targets.entries()) {
        const { memories } = await side.core.searchMemories(ANONYMOUS, { query, scope: "repo:same", k: 10 }, "connect");
        if (memories[0]?.id === ids[i]) first++;
      }
      expect({ store: side.name, first }).toEqual({ store: side.name, first: 40 });
    }
  }, 60_000);

  it.skipIf(!existsSync(LOCOMO))("over a stored LoCoMo conversation's turns, at least 98% of the turns asked are first for their own content, on both stores", async () => {
    const bench = parseLocomo(JSON.parse(readFileSync(LOCOMO, "utf8")));
    // Its first 120 turns (its first sessions) and every fourth of them asked: enough for
    // the share, and each Qdrant fake search answers many sparse lookups, so the file stays quick.
    const turns = bench.turns.filter((t) => t.scope === "locomo:conv-30").slice(0, 120);
    for (const side of sides) {
      for (const [i, t] of turns.entries()) {
        side.setClock(START + i * 1000);
        await side.core.storeMemory(ANONYMOUS, { content: t.content, scope: t.scope, source: "user-said", category: "preference" });
      }
      const asked = turns.filter((_, i) => i % 4 === 0);
      let first = 0;
      for (const t of asked) {
        const { memories } = await side.core.searchMemories(ANONYMOUS, { query: t.content, scope: t.scope, k: 5, full: true }, "connect");
        if (memories[0] && sameText(memories[0].content ?? "", t.content)) first++;
      }
      expect({ store: side.name, share: first / asked.length }).toEqual({ store: side.name, share: expect.toSatisfy((s: number) => s >= 0.98) });
    }
  }, 60_000);
});
