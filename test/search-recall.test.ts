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
