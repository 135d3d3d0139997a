import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger } from "../src/core/index.js";
import { countsKept } from "../src/core/term-counts.js";
import { EmbedderError } from "../src/embed/embedder-error.js";
import { FakeEmbedder } from "../src/embed/fake-embedder.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";

const DIM = 32;

/** The fake bag of words, except that a query's embedding waits until the test lets it end, or fails. */
class HeldQueryEmbedder extends FakeEmbedder {
  private release: (outcome: Error | undefined) => void = () => {};
  private readonly outcome = new Promise<Error | undefined>((resolve) => (this.release = resolve));
  embedding = false;

  constructor() {
    super(DIM);
  }

  /** Texts embedded as documents (words, for soft term matches) while a query embeds. */
  readonly meanwhile: string[] = [];

  override async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    if (this.embedding) this.meanwhile.push(...texts);
    return super.embedDocuments(texts);
  }

  override async embedQuery(text: string): Promise<Float32Array> {
    this.embedding = true;
    const failure = await this.outcome;
    this.embedding = false;
    if (failure) throw failure;
    return super.embedQuery(text);
  }

  end(failure?: Error): void {
    this.release(failure);
  }
}

async function fixture() {
  const embedder = new HeldQueryEmbedder();
  const store = EmbeddedStore.open({ dataDir: mkdtempSync(join(tmpdir(), "engram-while-embedding-")), dim: DIM });
  // What the store is asked, and whether the query was still embedding then.
  const asked: { call: string; embedding: boolean }[] = [];
  const watched = new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        asked.push({ call: String(name), embedding: embedder.embedding });
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const core = createCore({ store: watched, embedder, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
  for (const content of ["billing moved to CockroachDB", "use pnpm in the web repo", "deploys go out on Tuesdays"]) {
    await core.storeMemory(ANONYMOUS, { content, scope: "repo:web", source: "user-said", category: "decision" });
  }
  asked.length = 0;
  return { embedder, store, core, asked };
}

/** Lets every queued callback and timer of this turn run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("a search while its query embeds", () => {
  it("asks the store for candidates, term weights and the scopes it spans before the embedding ends", async () => {
    const { embedder, store, core, asked } = await fixture();
    const answer = core.searchMemories(ANONYMOUS, { query: "which database for billing", cross_spine: true, k: 3 }, "connect");
    await settle();
    expect(asked.map((a) => a.call).sort()).toEqual(["scopeCounts", "search", "search", "termRecordCount", "termWeights"]);
    expect(asked.every((a) => a.embedding)).toBe(true);
    embedder.end();
    const { memories, coverage } = await answer;
    expect(memories[0]?.summary).toBe("billing moved to CockroachDB");
    expect(coverage).toEqual({ searched_scopes: ["repo:web"], scopes_truncated: false });
    await store.close();
  });

  it("counts the terms of the records it found by words, and embeds their words, before the embedding ends", async () => {
    const { embedder, store, core } = await fixture();
    const before = countsKept();
    const answer = core.searchMemories(ANONYMOUS, { query: "which database for billing", scope: "repo:web" }, "connect");
    await settle();
    expect(embedder.embedding).toBe(true);
    expect(countsKept()).toBe(before + 1);
    expect(embedder.meanwhile).toEqual(expect.arrayContaining(["billing", "moved", "cockroachdb"]));
    expect(embedder.meanwhile).not.toContain("pnpm");
    embedder.end();
    expect((await answer).memories[0]?.summary).toBe("billing moved to CockroachDB");
    await store.close();
  });

  it("fails with the embedder's failure, not a store's, though the store began meanwhile", async () => {
    const { embedder, store, core } = await fixture();
    const answer = core.searchMemories(ANONYMOUS, { query: "which database for billing", scope: "repo:web" }, "connect").catch((e: unknown) => e);
    await settle();
    const failure = new EmbedderError("the embedder cannot be reached", { reason: "embedder_unreachable" });
    embedder.end(failure);
    expect(await answer).toBe(failure);
    await store.close();
  });
});
