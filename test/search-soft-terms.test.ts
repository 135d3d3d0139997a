import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger, wordVectorsOf } from "../src/core/index.js";
import { FakeEmbedder } from "../src/embed/fake-embedder.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";

const DIM = 64;

/**
 * The fake bag of words, except that the single word "violin" lies at cosine
 * 0.9 from "instruments", as a real model puts them, and it records every
 * text it is given.
 */
class NearWordsEmbedder extends FakeEmbedder {
  seen: string[] = [];

  constructor() {
    super(DIM);
  }

  override async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    this.seen.push(...texts);
    const plain = await super.embedDocuments(texts);
    const [instruments, violin] = await super.embedDocuments(["instruments", "violin"]);
    this.calls--;
    this.texts -= 2;
    return plain.map((v, i) => (texts[i] === "violin" ? instruments!.map((x, d) => 0.9 * x + Math.sqrt(0.19) * violin![d]!) : v));
  }
}

function fixture() {
  const embedder = new NearWordsEmbedder();
  const store = EmbeddedStore.open({ dataDir: mkdtempSync(join(tmpdir(), "engram-soft-")), dim: DIM });
  // A second between writes: the storage order, and so the neighbours' lift, must not turn on random ids.
  let tick = Date.parse("2026-06-01T12:00:00Z");
  const core = createCore({ store, embedder, limits: DEFAULT_LIMITS, now: () => new Date((tick += 1000)), log: silentLogger });
  const put = (content: string) => core.storeMemory(ANONYMOUS, { content, scope: "repo:music", source: "user-said", category: "preference" });
  return { embedder, core, put };
}

describe("a search with soft term matches", () => {
  it("ranks the record holding a word near the query's in meaning above one that shares only a stop word with it", async () => {
    const { core, put } = fixture();
    // A query word counts by its weight in the store, so some record must hold it; the
    // records after it keep the two compared out of reach of its storage neighbours' lift.
    const sold = await put("We sold the old instruments last spring.");
    for (const filler of ["Lunch was at noon.", "The bus ran late.", "Keys hang on the hook."]) await put(filler);
    const weather = await put("Which way the weather turned, nobody knew.");
    const violin = await put("I play the violin every evening.");
    const { memories } = await core.searchMemories(ANONYMOUS, { query: "Which instruments?", scope: "repo:music", k: 10 }, "connect");
    const ids = memories.map((m) => m.id);
    expect(ids[0]).toBe(sold.id);
    expect(ids.indexOf(violin.id)).toBeLessThan(ids.indexOf(weather.id));
    const score = (id: string) => memories.find((m) => m.id === id)!.score!;
    expect(score(violin.id)).toBeGreaterThan(score(weather.id));
  });

  it("embeds the words a search meets once, so the next search over the same records embeds only its query", async () => {
    const { embedder, core, put } = fixture();
    await put("I play the violin every evening.");
    await put("We sold the old instruments last spring.");
    // Without background warming a write embeds its text alone.
    expect(embedder.calls).toBe(2);
    await core.searchMemories(ANONYMOUS, { query: "Which violin?", scope: "repo:music", k: 2 }, "connect");
    // The query's vector; the query's words with those of the candidate found by words, while the query embeds;
    // then the words of the candidate found by meaning alone.
    expect(embedder.calls).toBe(5);
    expect(embedder.seen).toEqual(expect.arrayContaining(["violin", "evening", "sold", "spring"]));
    await core.searchMemories(ANONYMOUS, { query: "Which instruments?", scope: "repo:music", k: 2 }, "connect");
    expect(embedder.calls).toBe(6);
  });

  it("with background warming, has a write's words embedded after it in one call, so a search embeds only its query", async () => {
    const { embedder, core, put } = fixture();
    const words = wordVectorsOf(embedder);
    words.warmInBackground();
    await put("I play the violin every evening.");
    await put("We sold the old instruments last spring.");
    await words.settled();
    const seen = embedder.seen.length;
    expect(embedder.seen).toEqual(expect.arrayContaining(["violin", "evening", "sold", "spring"]));
    await core.searchMemories(ANONYMOUS, { query: "Which violin?", scope: "repo:music", k: 2 }, "connect");
    expect(embedder.seen.length).toBe(seen);
  });
});
