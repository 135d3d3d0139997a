import { Worker } from "node:worker_threads";
import { workerOpenSource } from "../sqlite/index.js";

/** How often the checkpointer copies what has been committed since its last round. */
const ROUND_MS = 25;

/**
 * Passive WAL checkpoints on a worker thread, over a connection of its own,
 * while a sweep's passes write on the main thread. A passive checkpoint
 * never blocks a writer or a reader; it copies committed pages from the WAL
 * into the file. The sweep's connection checkpoints nothing itself meanwhile
 * (wal_autocheckpoint 0), so the copying (about a tenth of a forward sweep
 * over 100,000 records) leaves the thread that writes. What a crash keeps
 * is unchanged: every commit is in the WAL before it is copied.
 *
 * `stop` asks for one last round and resolves once the worker has closed its
 * connection, so the store's own close is the last one (which folds in the
 * rest and removes the WAL).
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly ended: Promise<void>;

  constructor(file: string) {
    const { code: open, driver } = workerOpenSource();
    // Plain CommonJS on purpose: the worker needs nothing but the driver.
    const code = `
      const { workerData } = require("node:worker_threads");
      ${open}
      const db = openDb(workerData.file, false);
      try {
        db.exec("PRAGMA busy_timeout = 0");
        const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
        // After stop, one more round: it copies what the last pass committed.
        for (;;) {
          try { checkpoint.all(); } catch {}
          if (Atomics.load(workerData.flag, 0) !== 0) break;
          Atomics.wait(workerData.flag, 0, 0, workerData.roundMs);
        }
      } finally {
        db.close();
      }`;
    this.worker = new Worker(code, { eval: true, workerData: { driver, file, flag: this.flag, roundMs: ROUND_MS } });
    this.worker.unref();
    this.ended = new Promise<void>((resolve) => {
      this.worker.once("exit", () => resolve());
      this.worker.once("error", () => resolve());
    });
  }

  /** One last round, then the worker closes its connection and ends. */
  async stop(): Promise<void> {
    Atomics.store(this.flag, 0, 1);
    Atomics.notify(this.flag, 0);
    this.worker.ref();
    try {
      await this.ended;
    } finally {
      this.worker.unref();
    }
  }
}
