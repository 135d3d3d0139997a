import { Worker } from "node:worker_threads";
import { noteOnSpan } from "../model/trace-hook.js";
import { workerStart } from "../worker-start.js";
import { Admission } from "./admission.js";
import { chunks } from "./chunks.js";
import { EmbedderError } from "./embedder-error.js";
import type { WorkerData, WorkerModelLoader, WorkerReply, WorkerRequest } from "./worker-protocol.js";

export interface WorkerPoolOptions {
  /** Worker threads, each with its own copy of the model. */
  workers: number;
  /** Jobs that may wait for a worker; one more is refused as unavailable. */
  queue: number;
  batchSize?: number;
  /** Texts per job: a longer list is split into jobs of this many, run on as many workers as are free. */
  jobTexts?: number;
  loader?: WorkerModelLoader;
}

/**
 * Texts per pool job by default, the same as a write batch's chunk. Measured
 * with the local model on short records (bench/rows/bulk-ingestion.ts): the
 * model's throughput per text does not grow past 32 texts a job, so jobs are
 * sized to spread a list over every worker while each stays short.
 */
export const DEFAULT_JOB_TEXTS = 32;

export type PoolReadiness = { ready: boolean; reason?: string };

const SOURCE = "local embedder";

/** One worker thread doing one job at a time. */
class PoolWorker {
  private readonly worker: Worker;
  private pending: { id: number; resolve(r: WorkerReply): void; reject(e: Error): void } | undefined;
  private nextId = 1;
  dead = false;

  constructor(data: WorkerData, onExit: (w: PoolWorker) => void) {
    const start = workerStart(import.meta.url, "embed-worker");
    // The worker sends its own stdout to stderr (see embed-worker.ts); a
    // piped stdout stream here would hold the process open even when idle.
    this.worker = new Worker(start.entry, { eval: start.eval, workerData: data });
    this.worker.unref();
    this.worker.on("message", (msg: WorkerReply) => {
      const p = this.pending;
      if (p === undefined || p.id !== msg.id) return;
      this.pending = undefined;
      this.worker.unref();
      p.resolve(msg);
    });
    const fail = (why: string) => {
      if (this.dead) return;
      this.dead = true;
      const p = this.pending;
      this.pending = undefined;
      p?.reject(new EmbedderError(`${SOURCE}: worker ${why}`));
      onExit(this);
    };
    this.worker.on("error", (err) => fail(`failed (${err.name})`));
    this.worker.on("exit", (code) => fail(`exited with code ${code}`));
  }

  /** Sends one request; the worker holds the process open only while it works. */
  request(req: Omit<WorkerRequest, "id"> & { kind: WorkerRequest["kind"] }): Promise<WorkerReply> {
    if (this.dead) return Promise.reject(new EmbedderError(`${SOURCE}: worker is gone`));
    const id = this.nextId++;
    return new Promise<WorkerReply>((resolve, reject) => {
      this.pending = { id, resolve, reject };
      this.worker.ref();
      this.worker.postMessage({ ...req, id } as WorkerRequest);
    });
  }

  async terminate(): Promise<void> {
    this.dead = true;
    const p = this.pending;
    this.pending = undefined;
    p?.reject(new EmbedderError(`${SOURCE}: embedder closed`));
    await this.worker.terminate();
  }
}

/**
 * A small pool of embedding worker threads behind a bounded queue. Workers
 * start on demand (up to `workers`), load the model once each, and are
 * unref'd while idle, so an idle pool never keeps a process alive; `close`
 * terminates them.
 */
export class EmbedWorkerPool {
  private readonly admission: Admission;
  private readonly idle: PoolWorker[] = [];
  private readonly all = new Set<PoolWorker>();
  private readonly data: WorkerData;
  private loadedOnce = false;
  private lastLoadFailed = false;
  private closed = false;

  constructor(readonly options: WorkerPoolOptions) {
    this.admission = new Admission(options.workers, options.queue);
    this.data = { batchSize: options.batchSize, loader: options.loader };
  }

  pressure(): { running: number; queued: number } {
    return this.admission.pressure();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  readiness(): PoolReadiness {
    if (this.closed) return { ready: false, reason: "embedder closed" };
    if (this.loadedOnce) return { ready: true };
    return { ready: false, reason: this.lastLoadFailed ? "model failed to load" : "model loading" };
  }

  /** Starts every worker and loads its model; rejects if none could load. */
  async warmUp(): Promise<void> {
    const jobs = Array.from({ length: this.options.workers }, () => this.admission.run(() => this.onWorker({ kind: "warm" })));
    const results = await Promise.allSettled(jobs);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (!this.loadedOnce && failed) throw failed.reason;
  }

  /**
   * One vector per text, in input order. A list longer than one job is split
   * into jobs, one per worker at a time, each passing the admission on its
   * own: an import batch spreads over every worker, and a full queue
   * refuses it as unavailable like any other request.
   */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const size = this.options.jobTexts ?? DEFAULT_JOB_TEXTS;
    const worked = { ms: 0 };
    try {
      return texts.length <= size ? await this.embedJob(texts, worked) : await this.embedJobs(chunks(texts, size), worked);
    } finally {
      noteOnSpan("engram.embed.worker_ms", Math.round(worked.ms * 1000) / 1000);
    }
  }

  private async embedJobs(jobs: string[][], worked: { ms: number }): Promise<Float32Array[]> {
    // At most one job per worker in flight, so a long list never fills the queue by itself.
    const parts: Float32Array[][] = [];
    let next = 0;
    let failed = false;
    const lane = async (): Promise<void> => {
      while (!failed && next < jobs.length) {
        const at = next++;
        try {
          parts[at] = await this.embedJob(jobs[at]!, worked);
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.workers, jobs.length) }, lane));
    return parts.flat();
  }

  private async embedJob(texts: string[], worked: { ms: number }): Promise<Float32Array[]> {
    const reply = await this.admission.run(() => this.onWorker({ kind: "embed", texts }));
    if (reply.kind !== "vectors") throw new EmbedderError(`${SOURCE}: worker sent an unexpected reply`);
    worked.ms += reply.ms;
    if (reply.vectors.length !== texts.length) {
      throw new EmbedderError(`${SOURCE} returned ${reply.vectors.length} vectors for ${texts.length} texts`);
    }
    return reply.vectors;
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
  }

  /** Runs one request on an idle worker (the admission guarantees one is free or may be started). */
  private async onWorker(req: { kind: "warm" } | { kind: "embed"; texts: string[] }): Promise<WorkerReply> {
    if (this.closed) throw new EmbedderError(`${SOURCE}: embedder closed`);
    const worker = this.idle.pop() ?? this.spawn();
    try {
      const reply = await worker.request(req);
      if (reply.kind === "failed") {
        if (reply.loadFailed) this.lastLoadFailed = true;
        throw new EmbedderError(`${SOURCE}: ${reply.error}`);
      }
      this.loadedOnce = true;
      this.lastLoadFailed = false;
      return reply;
    } finally {
      if (!worker.dead && !this.closed) this.idle.push(worker);
    }
  }

  private spawn(): PoolWorker {
    const w = new PoolWorker(this.data, (gone) => {
      this.all.delete(gone);
      const at = this.idle.indexOf(gone);
      if (at >= 0) this.idle.splice(at, 1);
    });
    this.all.add(w);
    return w;
  }
}
