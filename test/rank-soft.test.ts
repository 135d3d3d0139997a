import { describe, expect, it } from "vitest";
import { RANKING } from "../src/core/rank.js";
import { withSoftTerms } from "../src/core/rank-soft.js";
import { WordVectors } from "../src/core/word-vectors.js";
import type { Embedder } from "../src/embed/embedder.js";
import { deepFreeze } from "../src/model/deep-freeze.js";
import type { ScoredRecord } from "../src/model/record.js";
import { quantize } from "../src/store/index.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

/** Word vectors in three dimensions: "violin" sits at cosine 0.9 from "instruments", "cello" at 0.5; every other word is apart from both. */
const NEAR: Record<string, [number, number, number]> = {
  instruments: [1, 0, 0],
  violin: [0.9, Math.sqrt(1 - 0.81), 0],
  cello: [0.5, Math.sqrt(1 - 0.25), 0],
};

/** Embeds single words only, counting calls and words, so a test can see what a search asked for. */
class WordEmbedder implements Embedder {
  readonly identity = Object.freeze({ provider: "local" as const, model: "three-words", dim: 3 });
  calls = 0;
  words: string[] = [];

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    this.words.push(...texts);
    return texts.map((t) => Float32Array.from(NEAR[t] ?? [0, 0, 1]));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.embedDocuments([text]))[0]!;
  }
}

const hit = (i: number, content: string, score: number): ScoredRecord => ({ record: deepFreeze(syntheticRecord(i, { content, tags: [] })), score });

const scaled = (cosine: number) => (cosine - RANKING.softFloor) / (1 - RANKING.softFloor);

describe("soft term matches", () => {
  it("count a query word a record lacks when the record holds a word near it in meaning, from the floor up", async () => {
    const weights = new Map([["instrument", 2]]);
    const [ranked] = await withSoftTerms(new WordEmbedder(), "Which instruments?", weights, [[hit(2, "the weather is nice", 0.35), hit(1, "I play the violin", 0.3)]]);
    expect(ranked!.map((h) => h.record.id)).toEqual([syntheticRecord(1).id, syntheticRecord(2).id]);
    expect(ranked![0]!.score).toBeCloseTo(0.3 + RANKING.soft * scaled(0.9), 6);
    expect(ranked![1]!.score).toBe(0.35);
  });

  it("add nothing for a query word the record holds itself, nor for a word below the floor", async () => {
    const weights = new Map([["instrument", 2]]);
    const held = hit(1, "instruments galore and a violin", 0.3);
    const far = hit(2, "a cello in the hall", 0.2);
    const [ranked] = await withSoftTerms(new WordEmbedder(), "instruments", weights, [[held, far]]);
    expect(ranked!.map((h) => h.score)).toEqual([0.3, 0.2]);
  });

  it("weigh each query word by its term's weight, as a share of the query's", async () => {
    const weights = new Map([
      ["instrument", 3],
      ["hall", 2],
    ]);
    const [ranked] = await withSoftTerms(new WordEmbedder(), "instruments in the hall", weights, [[hit(1, "my violin", 0)]]);
    expect(ranked![0]!.score).toBeCloseTo((RANKING.soft * 3 * scaled(0.9)) / 5, 6);
  });

  it("leave out a query word weighing under half the heaviest one's weight", async () => {
    const weights = new Map([
      ["instrument", 3],
      ["hall", 1],
    ]);
    const [ranked] = await withSoftTerms(new WordEmbedder(), "instruments in the hall", weights, [[hit(1, "my violin", 0)]]);
    expect(ranked![0]!.score).toBeCloseTo(RANKING.soft * scaled(0.9), 6);
  });

  it("look up the words of every list in one embedder call, and leave the lists alone when no query word has a weight", async () => {
    const embedder = new WordEmbedder();
    const a = hit(1, "I play the violin", 0.3);
    const b = hit(2, "a cello in the hall", 0.2);
    const lists = await withSoftTerms(embedder, "instruments", new Map([["instrument", 1]]), [[a], [a, b]]);
    expect(embedder.calls).toBe(1);
    expect(new Set(embedder.words)).toEqual(new Set(["instruments", "play", "violin", "cello", "hall"]));
    expect(lists[1]!.map((h) => h.record.id)).toEqual([syntheticRecord(1).id, syntheticRecord(2).id]);

    const none = new WordEmbedder();
    const same = await withSoftTerms(none, "the", new Map(), [[b, a]]);
    expect(same[0]).toEqual([b, a]);
    expect(none.calls).toBe(0);
  });
});

describe("the word vectors kept", () => {
  it("embed a word once however often it is looked up, and answer the same vector", async () => {
    const embedder = new WordEmbedder();
    const kept = new WordVectors(embedder);
    const first = await kept.lookup(["violin", "cello", "violin"]);
    const again = await kept.lookup(["cello", "violin", "hall"]);
    expect(embedder.words).toEqual(["violin", "cello", "hall"]);
    expect(again.get("violin")).toEqual(first.get("violin"));
    expect(kept.size).toBe(3);
  });

  it("drop the least recently used word beyond their capacity, and embed it again when asked", async () => {
    const embedder = new WordEmbedder();
    const kept = new WordVectors(embedder, 2 * 3);
    expect(kept.capacity).toBe(2);
    await kept.lookup(["violin", "cello"]);
    await kept.lookup(["violin"]);
    await kept.lookup(["hall"]);
    expect(kept.size).toBe(2);
    await kept.lookup(["violin", "hall", "cello"]);
    expect(embedder.words).toEqual(["violin", "cello", "hall", "cello"]);
  });

  it("past a larger capacity, drop the least recently used eighth at once, and keep a word used since", async () => {
    const embedder = new WordEmbedder();
    const kept = new WordVectors(embedder, 16 * 3);
    const words = Array.from({ length: 17 }, (_, i) => `w${i}`);
    for (const w of words.slice(0, 16)) await kept.lookup([w]);
    await kept.lookup(["w0"]);
    await kept.lookup(["w16"]);
    expect(kept.size).toBe(14);
    const asked = embedder.words.length;
    await kept.lookup(["w0", "w4", "w16"]);
    expect(embedder.words.length).toBe(asked);
    await kept.lookup(["w1", "w2", "w3"]);
    expect(embedder.words.slice(asked)).toEqual(["w1", "w2", "w3"]);
  });

  it("keep a word's codes as quantized from its vector through the drops that compact the rest, and never change codes handed out", async () => {
    const embedder = new WordEmbedder();
    const kept = new WordVectors(embedder, 16 * 3);
    const before = (await kept.lookup(["violin"])).get("violin")!;
    const handed = [...before.codes];
    for (let i = 0; i < 40; i++) await kept.lookup(["violin", `w${i}`]);
    expect(kept.size).toBeLessThanOrEqual(16);
    const after = (await kept.lookup(["violin"])).get("violin")!;
    const want = quantize(Float32Array.from(NEAR.violin!));
    expect([...after.codes]).toEqual([...want.codes]);
    expect(after.scale).toBe(want.scale);
    expect([...before.codes]).toEqual(handed);
    expect(embedder.words.filter((w) => w === "violin")).toHaveLength(1);
  });

  it("embed a word once when two lookups ask for it together, and hand both its vector", async () => {
    const embedder = new WordEmbedder();
    const kept = new WordVectors(embedder);
    const [a, b] = await Promise.all([kept.lookup(["violin", "cello"]), kept.lookup(["cello", "hall"])]);
    expect(embedder.words).toEqual(["violin", "cello", "hall"]);
    expect(b.get("cello")).toEqual(a.get("cello"));
    expect([...b.keys()].sort()).toEqual(["cello", "hall"]);
  });

  it("pass an embedder failure to every lookup waiting on the one call", async () => {
    const embedder = new WordEmbedder();
    embedder.embedDocuments = async () => {
      embedder.calls++;
      throw new Error("queue full");
    };
    const kept = new WordVectors(embedder);
    const results = await Promise.allSettled([kept.lookup(["violin"]), kept.lookup(["violin"])]);
    expect(results.map((r) => (r.status === "rejected" ? (r.reason as Error).message : "resolved"))).toEqual(["queue full", "queue full"]);
    expect(embedder.calls).toBe(1);
    expect(kept.size).toBe(0);
  });

  it("take no offered word unless warming in the background", async () => {
    const embedder = new WordEmbedder();
    const kept = new WordVectors(embedder);
    kept.offer(["violin"]);
    await kept.settled();
    expect(embedder.calls).toBe(0);
    kept.warmInBackground();
    kept.offer(["violin", "cello"]);
    kept.offer(["cello", "hall"]);
    await kept.settled();
    // Offers made before the warming started go in one call, each word once.
    expect(embedder.calls).toBe(1);
    expect(embedder.words).toEqual(["violin", "cello", "hall"]);
    await kept.lookup(["violin", "hall"]);
    expect(embedder.calls).toBe(1);
  });

  it("drop what waits when the embedder refuses, and never throw to the writer", async () => {
    const embedder = new WordEmbedder();
    embedder.embedDocuments = async () => {
      throw new Error("queue full");
    };
    const kept = new WordVectors(embedder);
    kept.warmInBackground();
    expect(() => kept.offer(["violin"])).not.toThrow();
    await kept.settled();
    expect(kept.size).toBe(0);
  });
});
