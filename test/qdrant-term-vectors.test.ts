import { QdrantClient } from "@qdrant/js-client-rest";
import { afterEach, describe, expect, it } from "vitest";
import { createCore, DEFAULT_LIMITS, silentLogger } from "../src/core/index.js";
import { FakeEmbedder } from "../src/embed/fake-embedder.js";
import { ANONYMOUS } from "../src/model/subject.js";
import { LEXICAL_VECTOR, META_PREFIX, physicalCollectionName, TERM_VECTORS_META } from "../src/store/qdrant/layout.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { termIndex } from "../src/store/qdrant/sparse-vector.js";
import { captureLog } from "./helpers/capture-log.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

/** Wide enough that no query word here shares the fake embedder's bucket with another record's word, which would make it a soft term match. */
const DIM = 128;
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

async function fake(): Promise<QdrantFake> {
  const f = await startQdrantFake({ warn: () => {} });
  open.push(f);
  return f;
}

/**
 * A collection written before terms were stemmed and summaries indexed: its
 * points' lexical vectors hold whole words, and its metadata has no
 * term-vector version. The store rebuilds them in the background.
 */
describe("a Qdrant collection whose term vectors predate the current ones", () => {
  it("is rebuilt in the background with progress lines, searches stay correct meanwhile, and /readyz's part clears", async () => {
    const f = await fake();
    const collection = QdrantStore.uniqueCollection("terms");
    const first = await QdrantStore.open({ url: f.url, collection, dim: DIM });
    const core = createCore({ store: first, embedder: new FakeEmbedder(DIM), limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
    const put = (content: string, summary = "") => core.storeMemory(ANONYMOUS, { content, summary, scope: "repo:t", source: "user-said", category: "decision" });
    const painted = (await put("She painted the hallway a pale green.")).id;
    for (let i = 0; i < 5; i++) await put(`Weekly sync notes ${i}.`);
    const pnpm = (await put("Use it for every install.", "Package manager is pnpm")).id;
    await first.close();

    // Roll the collection back to what an older engram wrote: unstemmed words, content only, no version.
    const raw = new QdrantClient({ url: f.url, checkCompatibility: false });
    const physical = physicalCollectionName(collection);
    const old = (words: string[]) => ({ indices: [...new Set(words.map(termIndex))].sort((a, b) => a - b), values: words.map(() => 1) });
    await raw.updateVectors(physical, { wait: true, points: [{ id: painted, vector: { [LEXICAL_VECTOR]: old(["painted", "hallway", "pale", "green"]) } }] });
    await raw.updateVectors(physical, { wait: true, points: [{ id: pnpm, vector: { [LEXICAL_VECTOR]: old(["install"]) } }] });
    await raw.updateCollection(physical, { metadata: { [META_PREFIX + TERM_VECTORS_META]: "0" } });

    const log = captureLog();
    const store = await QdrantStore.open({ url: f.url, collection, dim: DIM, log });
    open.push(store);
    expect(store.readiness()).toEqual(["terms"]);
    // Meanwhile the stem and the summary word are unknown to the collection, and recall still answers by meaning.
    expect(await store.termWeights(["paint", "pnpm"])).toEqual(new Map());
    const during = createCore({ store, embedder: new FakeEmbedder(DIM), limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
    expect((await during.searchMemories(ANONYMOUS, { query: "weekly sync", scope: "repo:t", k: 3 }, "connect")).memories).toHaveLength(3);

    await store.warm();
    expect(store.readiness()).toEqual([]);
    const msgs = log.lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs).toContain("term vectors rebuilding: 0/7 records");
    expect(msgs).toContain("term vectors ready: 7 records");
    expect([...(await store.termWeights(["paint", "pnpm"])).keys()].sort()).toEqual(["paint", "pnpm"]);
    const hits = async (query: string) => (await during.searchMemories(ANONYMOUS, { query, scope: "repo:t", k: 1 }, "connect")).memories.map((m) => m.id);
    expect(await hits("painting")).toEqual([painted]);
    expect(await hits("pnpm")).toEqual([pnpm]);

    const again = await QdrantStore.open({ url: f.url, collection, dim: DIM });
    open.push(again);
    expect(again.readiness()).toEqual([]);
    expect(f.schemaViolations).toEqual([]);
  });
});
