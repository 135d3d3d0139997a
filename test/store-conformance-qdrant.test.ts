import type { MigrationStore } from "../src/store/migrations/index.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { storeConformance } from "./conformance/store-conformance.js";
import { startQdrantFake } from "./qdrant-fake/index.js";

// Two QdrantStore instances on one collection of the loopback fake stand for
// two servers; each run gets a fake of its own. The races use the suite's
// port-level ordering (reads before writes), which holds for any store.
// A request outside Qdrant's own schema fails the test that made it.
storeConformance("qdrant (two instances on one fake collection)", async () => {
  const fake = await startQdrantFake({ warn: () => {} });
  const dim = 32;
  const collection = QdrantStore.uniqueCollection("conformance");
  return {
    dim,
    open: async () => QdrantStore.open({ url: fake.url, collection, dim }),
    migrations: (store): MigrationStore => (store as QdrantStore).migrationStore(),
    cleanup: async () => {
      if (fake.schemaViolations.length > 0) throw new Error(`requests outside Qdrant's schema: ${JSON.stringify(fake.schemaViolations[0])}`);
      await fake.close();
    },
  };
});
