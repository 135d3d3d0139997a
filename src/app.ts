import { connectNodeHandler, maxRequestBytesFromEnv } from "./connect/index.js";
import { ANONYMOUS, createCore, limitsFromEnv, NO_SUMMARY_QUEUE, SummaryQueue, wordVectorsOf, type Core, type CoreDeps, type Logger } from "./core/index.js";
import { consoleSignInFromEnv, IDENTITY_SETTINGS, loadAuthenticator, protectedResourceFromEnv, stdioSubject, type Authenticator } from "./auth/index.js";
import { checkEmbedderIdentity, embedderFromEnv, identityKey, PooledLocalEmbedder, summaryConfigFromEnv, type Embedder, type SummaryConfig } from "./embed/index.js";
import { allowedOriginsFromEnv, listenAddrOf, requestTimeoutFromEnv, startServer, type Handler, type RunningServer } from "./server/index.js";
import { EmbeddedStore, StoreOpenError } from "./store/embedded/index.js";
import { QdrantSetupError, QdrantStore } from "./store/qdrant/index.js";
import { type Store, META_EMBEDDER_IDENTITY, TracedStore } from "./store/index.js";
import { stderrLogger } from "./stderr-logger.js";
import { mcpHttpHandler } from "./mcp/http-handler.js";
import { dataDirOf } from "./data-dir.js";
import { accessLog, createMetrics, startTracing, traceSettingsFromEnv, tracingOn } from "./observe/index.js";

export { DEFAULT_LISTEN_ADDR } from "./server/index.js";
export { startTracing } from "./observe/index.js";

export class StartupError extends Error {
  override readonly name = "StartupError";
}

/**
 * Opens the configured store. The embedded store is the default and needs
 * nothing else running. A file that cannot be used (not a database, damaged,
 * read-only, empty where records were) is a start refusal naming the file.
 */
export function openStore(env: NodeJS.ProcessEnv, dim: number, log?: Logger, opts: { integrityCheck?: boolean | "background" | "alongside" } = {}): Store {
  try {
    return EmbeddedStore.open({ dataDir: dataDirOf(env), dim, log, integrityCheck: opts.integrityCheck });
  } catch (err) {
    if (err instanceof StoreOpenError) throw new StartupError(err.message);
    throw err;
  }
}

/**
 * The store a server runs on: Qdrant when ENGRAM_QDRANT_URL is set (with
 * ENGRAM_QDRANT_API_KEY and ENGRAM_QDRANT_COLLECTION, the alias), else the
 * embedded store. Opening Qdrant checks the server version and the
 * collection before anything is served; what it refuses stops the start.
 */
export async function openServingStore(env: NodeJS.ProcessEnv, dim: number, log?: Logger): Promise<Store> {
  const url = env.ENGRAM_QDRANT_URL;
  if (!url) return openStore(env, dim, log);
  try {
    return await QdrantStore.open({ url, apiKey: env.ENGRAM_QDRANT_API_KEY || undefined, collection: env.ENGRAM_QDRANT_COLLECTION || undefined, dim, log });
  } catch (err) {
    if (err instanceof QdrantSetupError) throw new StartupError(err.message);
    throw err;
  }
}

/**
 * Refuses to serve vectors from one embedder to queries from another: the
 * scores would be meaningless. The first start records the identity.
 */
export async function ensureEmbedderIdentity(store: Store, embedder: Embedder): Promise<void> {
  await (await identityClaim(store, embedder))?.();
}

/** Checks the stored identity; on a store that has none yet, the write that records this embedder's. */
async function identityClaim(store: Store, embedder: Embedder): Promise<(() => Promise<void>) | undefined> {
  const stored = await store.getMeta(META_EMBEDDER_IDENTITY);
  const check = checkEmbedderIdentity(stored, embedder.identity);
  if (!check.ok) throw new StartupError(check.message);
  return check.first ? () => store.setMeta(META_EMBEDDER_IDENTITY, identityKey(embedder.identity)) : undefined;
}

export type Engram = {
  core: Core;
  deps: CoreDeps;
  auth: Authenticator;
  summaries?: SummaryQueue;
  /** Records the embedder's identity on a store that has none yet (opened with `deferIdentity`); nothing otherwise. */
  claimIdentity(): Promise<void>;
  close(): Promise<void>;
};

/**
 * `deferIdentity`: the embedder's identity is checked but not yet recorded on
 * a new store, so a start that fails after opening (a port in use) leaves
 * nothing that would refuse the next start with another embedder.
 */
export async function openEngram(opts: { env?: NodeJS.ProcessEnv; log?: Logger; embedder?: Embedder; store?: Store; deferIdentity?: boolean } = {}): Promise<Engram> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? stderrLogger();
  const limits = limitsFromEnv(env);
  const auth = loadAuthenticator(env, (msg, fields) => log.warn(msg, fields));
  const embedder = opts.embedder ?? embedderFromEnv(env);
  if (embedder instanceof PooledLocalEmbedder) wordVectorsOf(embedder).warmInBackground();
  const summary = summaryConfigFromEnv(env);
  let store = opts.store;
  if (store === undefined) {
    if (env.ENGRAM_QDRANT_URL) {
      store = await openServingStore(env, embedder.identity.dim, log);
    } else {
      // Said before opening, so a directory that cannot be created is named in the log.
      log.info("engram data directory", { data_dir: dataDirOf(env) });
      store = openStore(env, embedder.identity.dim, log, { integrityCheck: "background" });
    }
  }
  let claim = await identityClaim(store, embedder);
  if (!opts.deferIdentity) {
    await claim?.();
    claim = undefined;
  }
  // Only while tracing is on does a store call go through a span; otherwise the core calls the store itself.
  if (tracingOn()) store = new TracedStore(store);
  const deps: CoreDeps = { store, embedder, limits, now: () => new Date(), log };
  const summaries = startSummaryQueue(summary, env, deps);
  return {
    core: createCore(deps),
    deps,
    auth,
    summaries,
    claimIdentity: async () => {
      const once = claim;
      claim = undefined;
      await once?.();
    },
    close: async () => {
      await summaries?.close();
      await store.close();
    },
  };
}

/**
 * The on-write summary queue, when ENGRAM_SUMMARY_MODEL names a model and
 * ENGRAM_SUMMARY_ON_WRITE is true: every record a write creates is offered
 * to it through deps.onCreated. Otherwise nothing is ever sent anywhere.
 */
function startSummaryQueue(summary: SummaryConfig | undefined, env: NodeJS.ProcessEnv, deps: CoreDeps): SummaryQueue | undefined {
  if (summary === undefined) {
    if (/^(true|1)$/i.test(env.ENGRAM_SUMMARY_ON_WRITE?.trim() ?? "")) {
      deps.log.warn("ENGRAM_SUMMARY_ON_WRITE is set but ENGRAM_SUMMARY_MODEL is not; no summary is made and no content is sent anywhere");
    }
    return undefined;
  }
  if (!summary.onWrite) return undefined;
  const queue = new SummaryQueue(deps, summary.summarizer, { size: summary.queueSize, workers: summary.workers });
  deps.onCreated = (rec) => queue.offer(rec);
  deps.log.info("auto summaries on write", { model: summary.summarizer.model, workers: summary.workers, queue_size: summary.queueSize });
  return queue;
}

/**
 * `engram mcp`: the MCP tools over this process's stdin/stdout, acting as
 * ENGRAM_MCP_OWNER (anonymous when unset), until stdin ends. The MCP modules
 * load only here, so `engram serve` and the operator verbs never load the
 * stdio transport.
 */
/** The store's settings, for the check `serve` and `mcp` make before anything opens (src/cli/server-config.ts). */
export function checkStoreSettings(env: NodeJS.ProcessEnv): void {
  const url = env.ENGRAM_QDRANT_URL;
  if (!url) return;
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== "http:" && protocol !== "https:") throw new Error("ENGRAM_QDRANT_URL must be an absolute http:// or https:// URL");
}

/** The OTEL_* tracing settings, for the check `serve` and `mcp` make before anything opens (src/cli/server-config.ts). */
export function checkTracingSettings(env: NodeJS.ProcessEnv): void {
  traceSettingsFromEnv(env);
}

/** The listener's settings, for the check `serve` makes before anything opens (src/cli/server-config.ts). */
export function checkListenerSettings(env: NodeJS.ProcessEnv): void {
  maxRequestBytesFromEnv(env);
  allowedOriginsFromEnv(env);
  requestTimeoutFromEnv(env);
}

export async function serveMcpStdio(opts: { env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  const env = opts.env ?? process.env;
  const log = stderrLogger();
  const tracing = await startTracing(env, log);
  try {
    const engram = await openEngram({ env, log });
    const { serveStdio } = await import("./mcp/stdio.js");
    await serveStdio(engram, stdioSubject(env));
    await engram.close();
  } finally {
    await tracing?.shutdown();
  }
}

export type ServeOptions = { env?: NodeJS.ProcessEnv; listenAddr?: string; log?: Logger; embedder?: Embedder; store?: Store };

/** `engram serve`: one listener for Connect, gRPC, gRPC-Web, MCP and /healthz. */
/** `close(signal)`: the signal that stopped the process is logged as the stop begins and when it is done. */
export async function serve(opts: ServeOptions = {}): Promise<{ server: RunningServer; engram: Engram; close(signal?: string): Promise<void> }> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? stderrLogger();
  // Before the store opens, so that its Qdrant client is traced too.
  const tracing = await startTracing(env, log);
  let engram: Engram;
  try {
    engram = await openEngram({ ...opts, env, log, deferIdentity: true });
  } catch (err) {
    await tracing?.shutdown();
    throw err;
  }
  if (engram.auth.anonymous) {
    // Empty counts as unset, as for every setting; the names (never the values) say which were set so, in case that was a mistake.
    const empty = IDENTITY_SETTINGS.filter((name) => env[name] !== undefined && env[name]!.trim() === "");
    log.warn(
      "no bearer tokens configured: running ANONYMOUS, every caller shares owner \"\"; set ENGRAM_AUTH_TOKENS or ENGRAM_AUTH_TOKENS_FILE, or ENGRAM_OIDC_ISSUER",
      empty.length > 0 ? { set_but_empty: empty } : {},
    );
  } else {
    log.info("bearer lanes", { lanes: [...engram.auth.lanes] });
  }
  const deps = engram.deps;
  const metrics = createMetrics({
    embedPressure: () => embedPressureOf(deps.embedder),
    storeRecords: async () => (await deps.store.schemaHistogram()).total,
    waiting: () => waitingParts(deps),
    summaryQueue: () => engram.summaries ?? NO_SUMMARY_QUEUE,
    traceDrops: () => tracing?.drops(),
  });
  const observe = accessLog(log, metrics.observe);
  const maxRequestBytes = maxRequestBytesFromEnv(env);
  const connect = connectNodeHandler({ core: engram.core, log, auth: engram.auth, maxRequestBytes, observe }) as Handler;
  let server: RunningServer;
  try {
    server = await startServer({
      listenAddr: listenAddrOf(env, opts.listenAddr),
      connect,
      mcp: mcpHttpHandler(engram.core, { maxRequestBytes, observe }),
      metrics: metrics.render,
      auth: engram.auth,
      protectedResource: protectedResourceFromEnv(env),
      consoleSignIn: consoleSignInFromEnv(env, engram.deps.store),
      onUnauthenticated: metrics.unauthenticated,
      allowedOrigins: allowedOriginsFromEnv(env),
      requestTimeoutMs: requestTimeoutFromEnv(env),
      log: (line) => log.info(String(line.msg ?? "server"), line),
      waiting: () => waitingParts(engram.deps),
    });
  } catch (err) {
    await engram.close();
    await tracing?.shutdown();
    throw err;
  }
  await engram.claimIdentity();
  log.info("engram listening", { url: server.url, store: engram.deps.store.kind, embedder: identityKey(engram.deps.embedder.identity) });
  // Listening comes first: loading the mirror and catching the vector index
  // up run in slices between requests, and /readyz says when they are done.
  void (async () => {
    await reportMigrations(engram, log);
    await engram.deps.store.warm();
    await reportOwnerless(engram, log);
  })().catch((err: unknown) => log.error("store warm-up failed; searches keep scanning exactly", { error: err instanceof Error ? err.name : "unknown" }));
  return {
    server,
    engram,
    close: async (signal?: string) => {
      if (signal !== undefined) log.info("engram stopping", { signal });
      await server.close();
      await engram.close();
      await tracing?.shutdown();
      if (signal !== undefined) log.info("engram stopped", { signal });
    },
  };
}

/** The local model's queue; an embedder without one (OpenAI-compatible, fakes) has none to report. */
function embedPressureOf(embedder: Embedder): { running: number; queued: number } | undefined {
  const e = embedder as Embedder & { pressure?: () => { running: number; queued: number } };
  return typeof e.pressure === "function" ? e.pressure() : undefined;
}

/** What /readyz names as not ready: the store's own parts, then the embedder. */
export function waitingParts(deps: Pick<CoreDeps, "store" | "embedder">): string[] {
  const waiting: string[] = [...(deps.store.readiness?.() ?? [])];
  if (deps.embedder.readiness && !deps.embedder.readiness().ready) waiting.push("embedder");
  return waiting;
}

/**
 * Says at start whether the store needs `engram migrate` or holds records
 * from a newer binary. Read-only: the server never migrates by itself, and
 * a failing probe never blocks startup.
 */
export async function reportMigrations(engram: Engram, log: Logger): Promise<void> {
  try {
    const s = await engram.core.migrateStatus();
    if (s.pending > 0) log.warn("pending schema migrations exist; run: engram migrate", { pending: s.pending, current_version: s.current_version });
    if (s.future_total > 0) {
      log.warn("records at a future schema version exist — this binary may be too old for some records", {
        future_versions: s.future.map((b) => b.version),
        future_total: s.future_total,
      });
    }
  } catch (err) {
    log.warn("schema status probe failed", { error: String(err) });
  }
}

/**
 * Says at start whether records exist that no caller can read for their
 * owner: records with no owner key at all (written before owners existed)
 * and, when callers authenticate, records of the anonymous bucket. Counted
 * once the store is warm; read-only, and a failing count never stops a start.
 */
export async function reportOwnerless(engram: Engram, log: Logger): Promise<void> {
  try {
    const all = { subject: ANONYMOUS, allOwners: true, gate: null, now: Math.floor(Date.now() / 1000) };
    const missing = await engram.deps.store.count({ ...all, owner: null });
    if (missing > 0) {
      log.warn("records without an owner exist and no owner-scoped read sees them; run: engram migrate-remap-owner --from-missing --to <owner>", { records: missing });
    }
    if (!engram.auth.anonymous) {
      const anonymous = await engram.deps.store.count({ ...all, owner: "" });
      if (anonymous > 0) {
        log.warn("records of the anonymous bucket (owner \"\") exist but callers authenticate, so no caller sees them; run: engram migrate-remap-owner --from-anon --to <owner>", {
          records: anonymous,
        });
      }
    }
  } catch (err) {
    log.warn("owner probe failed", { error: err instanceof Error ? err.name : "unknown" });
  }
}
