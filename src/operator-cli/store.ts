import { existsSync } from "node:fs";
import { join } from "node:path";
import { CliFailure } from "../cli-kit/index.js";
import type { CoreDeps } from "../core/deps.js";
import type { Embedder } from "../embed/embedder.js";
import type { EmbeddedStore } from "../store/embedded/index.js";
import type { Code } from "@connectrpc/connect";
import type { MigrationStore } from "../store/migrations/migration-store.js";
import type { Store } from "../store/index.js";
import { EXIT, exitForConnectCode, type ExitCode } from "../argerror/index.js";
import { DATA_DIR_ENV, dataDirOf } from "../data-dir.js";
import type { QdrantConnection } from "../store/qdrant/index.js";
import { failure } from "./common.js";
import { operatorSweep } from "./trace.js";

/**
 * Operator verbs open the store the server would open: the same
 * ENGRAM_DATA_DIR (default: the per-user data directory, see data-dir.ts) and the same embedder dimension. The
 * embedder is only asked for its identity, which is static; nothing here
 * loads a model, checks or stamps the embedder identity, or touches the
 * vector index, so a read-only verb leaves the store file as it found it.
 * The store is checked for damage before a verb runs, or, for migrate and
 * revert, alongside the sweep and before its first write (see
 * EmbeddedStoreOptions.integrityCheck).
 *
 * The heavy modules (SQLite, the server stack behind openStore) are
 * imported on first use, so `engram --help` and the client verbs do not
 * pay for them.
 */

export type OperatorStore = {
  store: EmbeddedStore;
  /** What core functions need; the embedder in it is never asked to embed. */
  deps: CoreDeps;
};

/**
 * How a verb has the file checked (see EmbeddedStoreOptions.integrityCheck):
 * before it runs, or, for a sweep, alongside its reads and before its first
 * write; either way a damaged file is refused with the same line.
 * `mayCreate` is for `engram import` alone: every other operator verb
 * refuses a store that does not exist rather than make an empty one and
 * report on it, which would tell an operator pointed at the wrong place
 * that all is well.
 */
export type CheckMode = { checkAlongside?: boolean; mayCreate?: boolean };

/** Who may make a store where there is none, for the refusals' remedy. */
const CREATORS = "only engram serve, engram mcp and engram import create one";

/** The line of a verb refused because the data directory holds no store. */
export function noStoreLine(env: NodeJS.ProcessEnv): string {
  const where = env[DATA_DIR_ENV] ? dataDirOf(env) : `${dataDirOf(env)} (the default, as ${DATA_DIR_ENV} is not set)`;
  return `no engram store in ${where}: it holds no engram.db; set ${DATA_DIR_ENV} to the data directory engram serve uses (${CREATORS})`;
}

/** Refuses a data directory that holds no store, before anything is opened or created in it. */
export function requireEmbeddedStore(env: NodeJS.ProcessEnv): void {
  const dir = dataDirOf(env);
  if (dir === ":memory:" || existsSync(join(dir, "engram.db"))) return;
  throw failure(EXIT.usage, noStoreLine(env));
}

/** The Qdrant deployment the environment configures, read as `engram serve` reads it. */
export function qdrantConnectionOf(env: NodeJS.ProcessEnv): QdrantConnection {
  return { url: env.ENGRAM_QDRANT_URL!, apiKey: env.ENGRAM_QDRANT_API_KEY || undefined, collection: env.ENGRAM_QDRANT_COLLECTION || undefined };
}

/**
 * Refuses a Qdrant deployment with no collection behind its alias, before
 * anything is made: the same rule as requireEmbeddedStore. Reading the
 * aliases is all it asks of Qdrant; one that cannot be reached is exit 5,
 * in the words of the access the verb is about to make (a verb that writes
 * says the store cannot accept writes, as a server start does).
 */
export async function requireQdrantCollection(env: NodeJS.ProcessEnv, access: "read" | "write"): Promise<void> {
  const { aliasTarget, connectQdrant, DEFAULT_QDRANT_COLLECTION, mapQdrantError } = await import("../store/qdrant/index.js");
  const conn = qdrantConnectionOf(env);
  const alias = conn.collection || DEFAULT_QDRANT_COLLECTION;
  const client = connectQdrant(conn);
  let target: string | undefined;
  try {
    target = await aliasTarget(client, alias);
  } catch (err) {
    const mapped = mapQdrantError(err, access);
    const exit = storeFaultExit(mapped);
    if (exit !== undefined) throw failure(exit, errorText(mapped));
    throw mapped;
  }
  if (target !== undefined) return;
  throw failure(
    EXIT.usage,
    `no engram collection behind the alias ${alias} on the Qdrant that ENGRAM_QDRANT_URL names; ` +
      `set ENGRAM_QDRANT_COLLECTION to the alias engram serve uses (${CREATORS})`,
  );
}

/**
 * A sweep's preflight reads the whole store anyway, so the file is checked
 * on another thread meanwhile rather than before it: the store does not
 * write until the check has passed, and a damaged file is refused with the
 * same line as a check at open (over 100,000 records, 0.2 s off each sweep).
 */
export const SWEEP_CHECK: CheckMode = { checkAlongside: true };

async function openOperatorStore(env: NodeJS.ProcessEnv, mode: CheckMode = {}): Promise<OperatorStore> {
  const [{ openStore }, { embedderFromEnv }, { EmbeddedStore }, { limitsFromEnv, silentLogger }] = await Promise.all([
    import("../app.js"),
    import("../embed/index.js"),
    import("../store/embedded/index.js"),
    import("../core/index.js"),
  ]);
  let embedder: ReturnType<typeof embedderFromEnv>;
  let limits: ReturnType<typeof limitsFromEnv>;
  try {
    embedder = embedderFromEnv(env);
    limits = limitsFromEnv(env);
  } catch (err) {
    if (err instanceof Error && err.name === "ModuleLoadError") throw err;
    // A configuration the server would refuse to start with is a usage error here too.
    throw failure(EXIT.usage, err instanceof Error ? err.message : String(err));
  }
  if (mode.mayCreate !== true) requireEmbeddedStore(env);
  let store;
  try {
    // Checked like `engram serve` does: a sweep or a migration must not run over a damaged file.
    store = openStore(env, embedder.identity.dim, undefined, { integrityCheck: mode.checkAlongside === true ? "alongside" : true });
  } catch (err) {
    if (isBusy(err)) throw failure(EXIT.unavailable, lockedText(err));
    // A dependency that cannot load is no fault of the data directory: its own line, exit 1.
    if (err instanceof Error && err.name === "ModuleLoadError") throw err;
    // A refusal that already names the file, the cause and the recovery, word for word as `engram serve` says it.
    if (isOpenRefusal(err)) throw failure(EXIT.usage, err.message);
    // Anything else at construction is configuration-shaped: a path that is not a directory, a file that is not a store.
    throw failure(EXIT.usage, `cannot open the store under ${dataDirOf(env)}: ${errorText(err)}`);
  }
  if (!(store instanceof EmbeddedStore)) {
    await store.close();
    throw failure(EXIT.usage, "operator verbs work on the embedded store only");
  }
  return { store, deps: { store, embedder, limits, now: () => new Date(), log: silentLogger } };
}

/**
 * The store refused its file (damaged, not a database, read-only, …), at open
 * (StartupError, from openStore) or from a check alongside the verb (the
 * store's own StoreOpenError): a usage failure with the refusal's line.
 */
function isOpenRefusal(err: unknown): err is Error {
  return err instanceof Error && (err.name === "StartupError" || err.name === "StoreOpenError");
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** SQLite says the file is held by another writer for longer than its busy timeout. */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** The line of a store held by another process: SQLite's own words ("database is locked"), never its code. */
function lockedText(err: unknown): string {
  return `the store is locked by another process: ${errorText(err)}`;
}

/**
 * Opens the store, runs `fn`, and always closes the store again, also when
 * `fn` fails. A store that stays locked is `unavailable` (exit 5), like a
 * server that cannot be reached.
 */
export function withOperatorStore<T>(fn: (s: OperatorStore) => Promise<T> | T, env: NodeJS.ProcessEnv = process.env, mode: CheckMode = {}): Promise<T> {
  return operatorSweep(env, () => onOperatorStore(fn, env, mode));
}

async function onOperatorStore<T>(fn: (s: OperatorStore) => Promise<T> | T, env: NodeJS.ProcessEnv, mode: CheckMode): Promise<T> {
  const opened = await openOperatorStore(env, mode);
  try {
    let result: T;
    try {
      result = await fn(opened);
    } finally {
      // A damaged file is refused whatever the verb met on it, as a check before the verb would have.
      await opened.store.integrityChecked().catch((err: unknown) => {
        throw isOpenRefusal(err) ? failure(EXIT.usage, err.message) : err;
      });
    }
    return result;
  } catch (err) {
    if (err instanceof CliFailure) throw err;
    if (isBusy(err)) throw failure(EXIT.unavailable, lockedText(err));
    // A dependency that cannot load is no fault of the data directory: its own line, exit 1.
    if (err instanceof Error && err.name === "ModuleLoadError") throw err;
    throw err;
  } finally {
    await opened.store.close();
  }
}

/**
 * The store `engram serve` would serve with this environment, for a verb that
 * needs only the Store port and the migration engine's view of it (import,
 * migrate, spine-review): Qdrant when ENGRAM_QDRANT_URL is set, else the
 * embedded store exactly as withOperatorStore opens it.
 */
export type ServingStore = {
  store: Store;
  embedder: Embedder;
  /** What core functions need; the embedder in it is never asked to embed. */
  deps: CoreDeps;
  migrations: MigrationStore;
  /**
   * Qdrant only: a snapshot of the physical collection, made before a
   * migration writes. The embedded store has none (copy the data directory).
   */
  snapshot?: () => Promise<{ collection: string; snapshot: string }>;
};

/** A Qdrant run's errors in the exit table: a refused deployment is usage, a store that cannot take it now is 5, a store timeout 6. */
export function qdrantFailure(err: unknown): unknown {
  if (!(err instanceof Error) || err instanceof CliFailure) return err;
  if (err.name === "QdrantSetupError") return failure(EXIT.usage, err.message);
  const fault = runFault(err);
  return fault === undefined ? err : failure(fault.exit, fault.text);
}

/**
 * A fault a verb met while it ran, as the exit table has it, with the line
 * that says so: a store another process keeps locked, an embedder or a store
 * that cannot be reached (5), a store that did not answer in time (6).
 * Undefined for anything else (a refusal, a bug), which the verb words itself.
 */
export function runFault(err: unknown): { exit: ExitCode; text: string } | undefined {
  if (isBusy(err)) return { exit: EXIT.unavailable, text: lockedText(err) };
  if (err instanceof Error && (err.name === "EmbedderError" || err.name === "ReindexBehindError")) return { exit: EXIT.unavailable, text: err.message };
  const exit = storeFaultExit(err);
  return exit === undefined ? undefined : { exit, text: (err as { rawMessage?: string }).rawMessage ?? errorText(err) };
}

/** The vocabulary's exit status for a store fault raised while a verb ran (Qdrant gone, a timeout); undefined for anything else. */
export function storeFaultExit(err: unknown): ExitCode | undefined {
  const e = err as { name?: unknown; code?: unknown; unavailable?: unknown } | null;
  if (e?.unavailable !== undefined) return EXIT.unavailable;
  if (e?.name === "ConnectError" && typeof e.code === "number") return exitForConnectCode(e.code as Code);
  return undefined;
}

/**
 * Opens the serving store, runs `fn`, and always closes it again. A Qdrant
 * that refuses the deployment (too old, another dimension) is a usage error;
 * one that cannot be reached, at open or while `fn` runs, is `unavailable`
 * (exit 5) and one that does not answer in time is exit 6, as on every lane.
 */
export function withServingStore<T>(fn: (t: ServingStore) => Promise<T>, env: NodeJS.ProcessEnv = process.env, mode: CheckMode = {}): Promise<T> {
  return operatorSweep(env, () => onServingStore(fn, env, mode));
}

async function onServingStore<T>(fn: (t: ServingStore) => Promise<T>, env: NodeJS.ProcessEnv, mode: CheckMode): Promise<T> {
  if (!env.ENGRAM_QDRANT_URL) return withOperatorStore(({ store, deps }) => fn({ store, embedder: deps.embedder, deps, migrations: store }), env, mode);
  const [{ openServingStore }, { embedderFromEnv }, { limitsFromEnv, silentLogger }] = await Promise.all([
    import("../app.js"),
    import("../embed/index.js"),
    import("../core/index.js"),
  ]);
  let embedder: Embedder;
  let limits: CoreDeps["limits"];
  try {
    embedder = embedderFromEnv(env);
    limits = limitsFromEnv(env);
  } catch (err) {
    if (err instanceof Error && err.name === "ModuleLoadError") throw err;
    throw failure(EXIT.usage, errorText(err));
  }
  // Opening the store was always a write (it may make the collection), so a Qdrant out of reach reads the same as before this check.
  if (mode.mayCreate !== true) await requireQdrantCollection(env, "write");
  let store: Store;
  try {
    store = await openServingStore(env, embedder.identity.dim, silentLogger);
  } catch (err) {
    if (isOpenRefusal(err)) throw failure(EXIT.usage, err.message);
    const exit = storeFaultExit(err);
    if (exit !== undefined) throw failure(exit, errorText(err));
    throw err;
  }
  try {
    const { QdrantStore } = await import("../store/qdrant/index.js");
    // openServingStore opens Qdrant whenever ENGRAM_QDRANT_URL is set, which is the only way here.
    if (!(store instanceof QdrantStore)) throw new Error("ENGRAM_QDRANT_URL is set but the serving store is not Qdrant");
    const migrations = store.migrationStore();
    const deps: CoreDeps = { store, embedder, limits, now: () => new Date(), log: silentLogger };
    return await fn({ store, embedder, deps, migrations, snapshot: () => migrations.snapshot() });
  } catch (err) {
    if (err instanceof CliFailure) throw err;
    const exit = storeFaultExit(err);
    if (exit !== undefined) throw failure(exit, errorText(err));
    throw err;
  } finally {
    await store.close().catch(() => undefined);
  }
}
