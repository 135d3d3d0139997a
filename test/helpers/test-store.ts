import { openServingStore } from "../../src/app.js";
import type { Logger } from "../../src/core/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { QdrantStore } from "../../src/store/qdrant/index.js";
import type { Store } from "../../src/store/store.js";
import { startQdrantFake, type QdrantFake, type SchemaViolation } from "../qdrant-fake/index.js";

/**
 * Which store the end-to-end servers of this run sit on. The vitest project
 * `qdrant-fake` sets ENGRAM_TEST_STORE=qdrant-fake and runs the same test
 * bodies a second time with every server on the loopback Qdrant fake.
 */
export type TestStoreKind = "embedded" | "qdrant-fake";

function kindFromEnv(value: string | undefined): TestStoreKind {
  if (value === undefined || value === "" || value === "embedded") return "embedded";
  if (value === "qdrant-fake") return "qdrant-fake";
  throw new Error(`ENGRAM_TEST_STORE must be "embedded" or "qdrant-fake" (got a value of ${value.length} bytes)`);
}

export const TEST_STORE: TestStoreKind = kindFromEnv(process.env.ENGRAM_TEST_STORE);
export const ON_QDRANT_FAKE = TEST_STORE === "qdrant-fake";

// One fake per test file: vitest evaluates this module afresh for every file, and the
// project's setup file (test/setup/qdrant-fake-file.ts) checks and closes it after the file.
let fileFake: Promise<QdrantFake> | undefined;
let reported = 0;

/** The loopback fake every server of this test file shares (each on its own collection). */
export function fileQdrantFake(): Promise<QdrantFake> {
  fileFake ??= startQdrantFake();
  return fileFake;
}

/** Schema violations the file's fake saw since the last call: each one is a request real Qdrant would refuse. */
export async function newSchemaViolations(): Promise<SchemaViolation[]> {
  if (!fileFake) return [];
  const all = (await fileFake).schemaViolations;
  const fresh = all.slice(reported);
  reported = all.length;
  return fresh;
}

export async function closeFileQdrantFake(): Promise<void> {
  const f = fileFake;
  fileFake = undefined;
  reported = 0;
  if (f) await (await f).close();
}

export type TestStore = {
  store: Store;
  /**
   * What a child process needs to open this same store: ENGRAM_DATA_DIR
   * always, plus the Qdrant URL and collection on the fake.
   */
  env: Record<string, string>;
};

/**
 * The store of one test server: embedded in `dataDir`, or a fresh collection
 * on the file's fake, opened the way `engram serve` opens it from its
 * environment (`env` is the server's own settings), so what a deployment's
 * settings do to the Qdrant store they do here too.
 */
export async function openTestStore(opts: { dataDir: string; dim: number; log?: Logger; env?: Record<string, string> }): Promise<TestStore> {
  if (!ON_QDRANT_FAKE) {
    return { store: EmbeddedStore.open({ dataDir: opts.dataDir, dim: opts.dim, log: opts.log }), env: { ENGRAM_DATA_DIR: opts.dataDir } };
  }
  const fake = await fileQdrantFake();
  const env = { ENGRAM_DATA_DIR: opts.dataDir, ENGRAM_QDRANT_URL: fake.url, ENGRAM_QDRANT_COLLECTION: QdrantStore.uniqueCollection("e2e") };
  const store = await openServingStore({ ...opts.env, ...env }, opts.dim, opts.log);
  return { store, env };
}

/** The embedded store behind a test server, for a file that is about the SQLite file itself. */
export function asEmbedded(store: Store): EmbeddedStore {
  if (!(store instanceof EmbeddedStore)) throw new Error(`this test reads the embedded store's file; the server runs on ${store.kind}`);
  return store;
}

/**
 * The store settings for an engram child process (`engram serve`, `engram mcp`)
 * that opens a store of its own: `dataDir` on the embedded store, plus a
 * fresh collection on the file's fake when this run is on Qdrant.
 */
export async function childStoreEnv(dataDir: string): Promise<Record<string, string>> {
  if (!ON_QDRANT_FAKE) return { ENGRAM_DATA_DIR: dataDir };
  const fake = await fileQdrantFake();
  return { ENGRAM_DATA_DIR: dataDir, ENGRAM_QDRANT_URL: fake.url, ENGRAM_QDRANT_COLLECTION: QdrantStore.uniqueCollection("e2e-child") };
}

/**
 * The name of a test or block that is about the embedded SQLite file, for a
 * `describe.skipIf(ON_QDRANT_FAKE)` / `it.skipIf(ON_QDRANT_FAKE)`: on the fake
 * the skip carries its reason in the report, never silently.
 */
export function embeddedOnly(name: string, reason: string): string {
  return ON_QDRANT_FAKE ? `${name} [embedded store only: ${reason}]` : name;
}

/** How many requests the file's fake got for the collection a child was given (0 off the fake). */
export async function qdrantRequestsFor(env: Record<string, string>): Promise<number> {
  const collection = env.ENGRAM_QDRANT_COLLECTION;
  if (!ON_QDRANT_FAKE || collection === undefined) return 0;
  return (await fileQdrantFake()).requests.filter((r) => r.collection === collection).length;
}
