import { QdrantClient } from "@qdrant/js-client-rest";
import { afterAll, describe, expect, it } from "vitest";
import { FakeEmbedder } from "../src/embed/fake-embedder.js";
import { ownerSubject } from "../src/model/subject.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { TargetsSupersededError } from "../src/store/store-errors.js";
import { storeConformance } from "./conformance/store-conformance.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

/**
 * The same guarantees against a real Qdrant, when ENGRAM_TEST_QDRANT_URL
 * names one: the whole conformance suite (two instances on a collection of
 * each test's own, dropped after it) and a start-up race, on unique aliases.
 * ENGRAM_REQUIRE_QDRANT=1 makes a missing server a failure, not a skip.
 */
const URL_ = process.env.ENGRAM_TEST_QDRANT_URL;
const REQUIRED = process.env.ENGRAM_REQUIRE_QDRANT === "1";

if (!URL_) {
  if (REQUIRED) {
    describe("real Qdrant", () => {
      it("ENGRAM_REQUIRE_QDRANT=1 needs ENGRAM_TEST_QDRANT_URL to name a Qdrant server", () => {
        expect.fail("ENGRAM_TEST_QDRANT_URL is not set");
      });
    });
  } else {
    console.log("qdrant store against a real Qdrant: SKIPPED (set ENGRAM_TEST_QDRANT_URL to a Qdrant 1.17+ server to run it)");
    describe.skip("real Qdrant", () => it("needs ENGRAM_TEST_QDRANT_URL", () => {}));
  }
} else {
  const apiKey = process.env.ENGRAM_TEST_QDRANT_API_KEY || undefined;
  /** Drops the collection an alias names (Qdrant drops the alias with it). */
  const drop = async (alias: string): Promise<void> => {
    const client = new QdrantClient({ url: URL_, apiKey, checkCompatibility: false });
    const { aliases } = await client.getAliases();
    const target = aliases.find((a) => a.alias_name === alias)?.collection_name;
    if (target) await client.deleteCollection(target);
  };

  storeConformance("qdrant (two instances on a real Qdrant)", async () => {
    const dim = 32;
    const collection = QdrantStore.uniqueCollection("engram-conformance");
    return {
      dim,
      open: async () => QdrantStore.open({ url: URL_, apiKey, collection, dim }),
      migrations: (store) => (store as QdrantStore).migrationStore(),
      cleanup: () => drop(collection),
    };
  });

  describe("the Qdrant store against a real Qdrant", () => {
    const alias = QdrantStore.uniqueCollection("engram-test");
    const embedder = new FakeEmbedder(32);
    const ALICE = ownerSubject("alice");
    const opened: QdrantStore[] = [];
    const open = async () => {
      const s = await QdrantStore.open({ url: URL_, apiKey, collection: alias, dim: 32 });
      opened.push(s);
      return s;
    };

    afterAll(async () => {
      for (const s of opened) await s.close();
      await drop(alias);
    });

    it("two stores start at once, create insert-only, and of 20 racing supersedes exactly one wins", async () => {
      const [a, b] = await Promise.all([open(), open()]);
      const v = await embedder.embedQuery("t");
      const rec = (i: number, extra = {}) => syntheticRecord(i, { owner: "alice", scope: "repo:real", ...extra });
      expect(await a.create(rec(1), v)).toBe(true);
      expect(await b.create(rec(1, { content: "other" }), v)).toBe(false);
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).supersede(rec(100 + i), v, [rec(1).id], ALICE)));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(TargetsSupersededError);
    });
  });
}
