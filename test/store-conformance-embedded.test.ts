import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { storeConformance } from "./conformance/store-conformance.js";

// Two EmbeddedStore instances on one data directory are two connections to
// one SQLite file, as a server and an operator verb are: the races run on
// real concurrency, with no interleaving forced.
storeConformance("embedded (two instances on one data dir)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-conformance-"));
  const dim = 32;
  return {
    dim,
    open: async () => EmbeddedStore.open({ dataDir: dir, dim }),
    migrations: (store) => store as EmbeddedStore,
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
