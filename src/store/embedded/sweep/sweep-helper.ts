import { Worker } from "node:worker_threads";
import { workerStart } from "../../../worker-start.js";
import type { StagedChunk, SweepDirection } from "./sweep-row.js";

/**
 * A sweep's chunks shared with the main thread (see SweepChunks): both
 * claim chunk indexes of `rids` from `claim[0]` and stop once `claim[1]`
 * is set (a forward rewrite failed on either side). `chars` counts the
 * payload text kept by both, for the stage's budget. `version` is a forward
 * sweep's target or a revert's version; `mint` the forward sweep's ids.
 */
export type SweepJob = {
  direction: SweepDirection;
  file: string;
  version: number;
  rids: Float64Array;
  mint: Float64Array | undefined;
  claim: Int32Array;
  chars: Int32Array;
  chunkRows: number;
  maxChars: number;
};

/** What the worker sends: `seq` is the change-log head of the snapshot it read. */
export type SweepMessage =
  | { kind: "chunk"; k: number; seq: number; chunk: StagedChunk }
  | { kind: "failed"; k: number; rid: number; name: string; message: string }
  | { kind: "done"; seq: number };

/**
 * The main thread's end of one sweep worker. Chunks queue up here while
 * the main thread is busy and are taken with `take`. The worker holds the
 * process open only while the sweep waits on it (`until`), and any way it
 * ends (done, a failure, a crash, after `stop`) settles `ended`, so nothing
 * waits on a worker that is gone.
 */
export class SweepHelper {
  /** Workers started by this process so far: a diagnostic, which tests read to know which path a sweep took. */
  static started = 0;

  private readonly worker: Worker;
  private queue: { k: number; seq: number; chunk: StagedChunk }[] = [];
  private readonly sentChunks = new Set<number>();
  private waiters: (() => void)[] = [];
  seq: number | undefined;
  failure: { k: number; rid: number; name: string; message: string } | undefined;
  /** The worker said it is done; false after a crash or a stop. */
  completed = false;
  ended = false;

  private readonly claim: Int32Array;

  constructor(job: SweepJob) {
    this.claim = job.claim;
    const start = workerStart(import.meta.url, "sweep-worker");
    this.worker = new Worker(start.entry, { eval: start.eval, workerData: job });
    SweepHelper.started++;
    this.worker.unref();
    this.worker.on("message", (m: SweepMessage) => {
      if (m.kind === "chunk") {
        this.seq = m.seq;
        this.queue.push({ k: m.k, seq: m.seq, chunk: m.chunk });
        this.sentChunks.add(m.k);
      } else if (m.kind === "failed") {
        this.failure = m;
      } else {
        this.seq = m.seq;
        this.completed = true;
      }
      this.wake();
    });
    const end = () => {
      this.ended = true;
      this.wake();
    };
    this.worker.on("error", end);
    this.worker.on("exit", end);
  }

  /** Whether chunk k has arrived (or failed). */
  sent(k: number): boolean {
    return this.sentChunks.has(k) || this.failure?.k === k;
  }

  /** The chunks received since the last call. */
  take(): { k: number; seq: number; chunk: StagedChunk }[] {
    const q = this.queue;
    this.queue = [];
    return q;
  }

  /**
   * Resolves once `ready()` holds or the worker has ended. The worker holds
   * the process open only while someone waits on it: with nothing else
   * pending, an unreferenced worker would let the process exit mid-sweep.
   */
  async until(ready: () => boolean): Promise<void> {
    if (this.ended || ready()) return;
    this.worker.ref();
    try {
      while (!this.ended && !ready()) await new Promise<void>((resolve) => this.waiters.push(resolve));
    } finally {
      this.worker.unref();
    }
  }

  /** Resolves once the worker has ended, however it ended. */
  finished(): Promise<void> {
    return this.until(() => false);
  }

  /**
   * Asks the worker to stop after the chunk it is computing. It then closes
   * its connection and ends by itself; terminating it instead would leave
   * that connection's read mark on the WAL for the life of the process.
   */
  stop(): void {
    Atomics.store(this.claim, 1, 1);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
