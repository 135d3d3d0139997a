import { describe, expect, it } from "vitest";
import { startTestServer } from "./helpers/engram-server.js";
import { fileQdrantFake, newSchemaViolations, ON_QDRANT_FAKE, TEST_STORE } from "./helpers/test-store.js";

// Without this, a project config that failed to pass ENGRAM_TEST_STORE would
// run the "Qdrant" end-to-end files on the embedded store and pass.
describe(`the end-to-end servers of this run are on the ${TEST_STORE} store`, () => {
  it("startTestServer opens the store this project names, and a record round-trips through it", async () => {
    const server = await startTestServer();
    try {
      expect(server.store.kind).toBe(ON_QDRANT_FAKE ? "qdrant" : "embedded");
      expect(Object.keys(server.storeEnv).sort()).toEqual(
        ON_QDRANT_FAKE ? ["ENGRAM_DATA_DIR", "ENGRAM_QDRANT_COLLECTION", "ENGRAM_QDRANT_URL"] : ["ENGRAM_DATA_DIR"],
      );
      const stored = await server.client().storeMemory({ content: "ci runs on two cores", scope: "repo:kind", source: "user-said", category: "convention" });
      expect((await server.store.getRaw(stored.id))?.content).toBe("ci runs on two cores");
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!ON_QDRANT_FAKE)("a request outside Qdrant's schema on the file's fake", () => {
  it("is refused 400 and reported to the per-test check, which then starts from zero again", async () => {
    const fake = await fileQdrantFake();
    // `limit` is an unsigned integer in Qdrant's schema for points/scroll.
    const r = await fetch(`${fake.url}/collections/nowhere/points/scroll`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ limit: -1 }),
    });
    expect(r.status).toBe(400);
    const found = await newSchemaViolations();
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatchObject({ where: "body" });
    // Taken, so the setup file's afterEach does not fail this test for it; a new one would be reported afresh.
    expect(await newSchemaViolations()).toEqual([]);
  });
});
