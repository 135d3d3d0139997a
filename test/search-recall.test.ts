import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedLocalEmbedder } from "../src/embed/index.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

/** Recall with the real local model: paraphrased queries must find the right record first. */
describe("recall with the local sentence model", () => {
  let server: TestServer;
  const ids: Record<string, string> = {};
  const records = {
    db: "We picked PostgreSQL for the billing service because invoices need strict transactional guarantees.",
    deploy: "Releases go out on Tuesdays through the blue-green pipeline; never ship on a Friday afternoon.",
    style: "Prefer small pure functions and name files in kebab-case across the TypeScript code base.",
  };

  beforeAll(async () => {
    server = await startTestServer({ embedder: sharedLocalEmbedder() });
    const c = server.client();
    for (const [key, content] of Object.entries(records)) {
      ids[key] = (await c.storeMemory({ content, scope: "repo:recall", source: "user-said", category: "decision" })).id;
    }
  }, 120_000);
  afterAll(async () => server.close());

  const cases = [
    ["which relational store handles payment data, and why", "db"],
    ["what weekday are deployments scheduled", "deploy"],
    ["how should source files be named", "style"],
  ] as const;

  for (const [query, want] of cases) {
    it(`"${query}" ranks the ${want} record first`, async () => {
      const r = await server.client().searchMemories({ query, scope: "repo:recall", k: 3n });
      expect(r.memories[0]?.id).toBe(ids[want]);
    });
  }

  it("a cross-spine search reports the scopes it spanned", async () => {
    const r = await server.client().searchMemories({ query: "deploy day", crossSpine: true });
    expect(r.searchedScopes).toEqual(["repo:recall"]);
    expect(r.scopesTruncated).toBe(false);
  });
});

/** Words rank by how rare they are, in content, summary and tags alike; hits come best first. */
describe("recall by words", () => {
  let server: TestServer;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer({ embedder: sharedLocalEmbedder() });
    const c = server.client();
    const put = async (key: string, content: string, extra: { summary?: string; tags?: string[] } = {}) => {
      ids[key] = (await c.storeMemory({ content, scope: "repo:words", source: "user-said", category: "convention", ...extra })).id;
    };
    await put("summary", "Use it for every install and lockfile change in this repository.", { summary: "Package manager is pnpm" });
    await put("stem", "She painted the hallway a pale green last spring.");
    await put("tag", "Ask before touching the shared staging cluster.", { tags: ["kubernetes"] });
    for (let i = 0; i < 12; i++) await put(`filler${i}`, `Filler note ${i} about meetings, lunches and the weekly sync.`);
  }, 120_000);
  afterAll(async () => server.close());

  const cases = [
    ["package manager", "summary", "a word of the summary alone"],
    ["who is painting the walls", "stem", "another form of the same word"],
    ["kubernetes access", "tag", "a tag"],
  ] as const;

  for (const [query, want, what] of cases) {
    it(`finds a memory by ${what}: "${query}" ranks it first`, async () => {
      const r = await server.client().searchMemories({ query, scope: "repo:words", k: 5n });
      expect(r.memories[0]?.id).toBe(ids[want]);
    });
  }

  it("returns hits in descending score order, the score being the one the order follows", async () => {
    for (const query of ["weekly sync meetings", "pnpm lockfile", "green hallway", "staging cluster notes"]) {
      const scores = (await server.client().searchMemories({ query, scope: "repo:words", k: 15n })).memories.map((m) => m.score);
      expect(scores).toHaveLength(15);
      for (let i = 1; i < scores.length; i++) expect(scores[i - 1]!).toBeGreaterThanOrEqual(scores[i]!);
    }
  });
});

/** A store of a few records cannot tell a common word from a rare one by its own counts. */
describe("recall in a store of four records", () => {
  let server: TestServer;
  const ids: Record<string, string> = {};
  const records = {
    pnpm: "Use pnpm, not npm, in the web repo.",
    billing: "We moved billing to CockroachDB.",
    review: "Two approvals before merging to main.",
    oncall: "The on-call rotation changes every Monday.",
  };

  beforeAll(async () => {
    server = await startTestServer({ embedder: sharedLocalEmbedder() });
    const c = server.client();
    for (const [key, content] of Object.entries(records)) {
      ids[key] = (await c.storeMemory({ content, scope: "repo:tiny", source: "user-said", category: "decision" })).id;
    }
  }, 120_000);
  afterAll(async () => server.close());

  it("ranks the billing record first for 'which database do we use for billing': 'use' weighs less than 'billing'", async () => {
    const r = await server.client().searchMemories({ query: "which database do we use for billing", scope: "repo:tiny", k: 4n });
    expect(r.memories[0]?.id).toBe(ids.billing);
  });

  it("ranks a record first when searched by its own content", async () => {
    for (const [key, content] of Object.entries(records)) {
      const r = await server.client().searchMemories({ query: content, scope: "repo:tiny", k: 4n });
      expect({ query: key, first: r.memories[0]?.id }).toEqual({ query: key, first: ids[key] });
    }
  });
});

/** The ranking does not depend on k: lanes with different default k agree on which hit is best. */
describe("recall at any k", () => {
  let server: TestServer;
  const WORDS = ["kiwi", "harvest", "orchard", "frost", "ladder", "crate", "market", "pruning", "rain", "tractor", "season", "plan"];

  beforeAll(async () => {
    server = await startTestServer();
    const c = server.client();
    for (let i = 0; i < 120; i++) {
      const words = [0, 1, 2, 3].map((j) => WORDS[(i * 7 + j * 5 + ((i * j) % 3)) % WORDS.length]).join(" ");
      await c.storeMemory({ content: `note ${i}: ${words}${i % 9 === 0 ? "?" : "."}`, scope: "project:big", source: "user-said", category: "decision" });
    }
  }, 120_000);
  afterAll(async () => server.close());

  it.each(["kiwi harvest", "frost on the ladder", "market plan for the season"])("answers %s at k 3, 8 and 20 with the head of its k 60 answer", async (query) => {
    const at = async (k: bigint) => (await server.client().searchMemories({ query, scope: "project:big", k })).memories.map((m) => m.id);
    const deep = await at(60n);
    for (const k of [3, 8, 20]) expect(await at(BigInt(k))).toEqual(deep.slice(0, k));
  });
});
