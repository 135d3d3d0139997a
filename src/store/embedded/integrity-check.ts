import { Worker } from "node:worker_threads";
import { resultCodeName, workerOpenSource } from "./sqlite/index.js";

/**
 * `PRAGMA quick_check` of a database file on a worker thread, over a
 * read-only connection of its own. The check reads every page: 2 s on a
 * warm 100,000-record (435 MB) file and 18 s on a cold one, on the 2-core
 * dev machine, which is too long to block a start or the event loop for.
 * Resolves with the number of problems found (0: the file is sound);
 * rejects with the SQLite error class when the file cannot be read at all.
 * `mmapBytes`: map the file for the check (faster, see CHECK_MMAP_BYTES).
 */
export function quickCheckInWorker(file: string, mmapBytes = 0): { done: Promise<number>; stop(): void } {
  const { code: open, driver } = workerOpenSource();
  // Plain CommonJS on purpose: the worker needs nothing but the driver. The
  // connection is closed before the answer goes out: a caller that closes
  // the store on hearing it must be the last connection, which is the one
  // that folds the WAL back into the file and removes it.
  const code = `
    const { workerData, parentPort } = require("node:worker_threads");
    ${open}
    let db;
    let answer;
    try {
      db = openDb(workerData.file, true);
      if (workerData.mmapBytes > 0) db.exec("PRAGMA mmap_size = " + workerData.mmapBytes);
      const rows = db.prepare("PRAGMA quick_check(10)").all();
      answer = { problems: rows.filter((r) => r.quick_check !== "ok").length };
    } catch (err) {
      answer = { error: errorCode(err) };
    } finally {
      if (db) db.close();
    }
    parentPort.postMessage(answer);`;
  const worker = new Worker(code, { eval: true, workerData: { driver, file, mmapBytes } });
  worker.unref();
  const done = new Promise<number>((resolve, reject) => {
    worker.once("message", (m: { problems?: number; error?: string | number }) => {
      if (typeof m.problems === "number") return resolve(m.problems);
      const code = typeof m.error === "number" ? resultCodeName(m.error) : m.error;
      reject(Object.assign(new Error(`integrity check failed: ${code}`), { code }));
    });
    worker.once("error", reject);
    worker.once("exit", () => reject(Object.assign(new Error("integrity check stopped"), { code: "stopped" })));
  });
  return { done, stop: () => void worker.terminate() };
}
