/**
 * A sweep worker: computes chunks of a migration sweep on a thread of its
 * own, over a read-only connection of its own, with the shipped registry
 * (see SweepChunks). It never writes; the main thread writes what it sends,
 * after checking each record is unchanged since.
 */
import { parentPort, workerData } from "node:worker_threads";
import { backwardVisitor, forwardVisitor } from "../../migrations/runner.js";
import { STEPS } from "../../migrations/registry.js";
import { CHANGE_LOG_HEAD_SQL } from "../sqlite-schema.js";
import { openSqlite, type SqliteDatabase } from "../sqlite/index.js";
import type { SweepJob, SweepMessage } from "./sweep-helper.js";
import { CHUNK_ROWS_SQL, RowFailure, scanChunk, type RowSource, type SweepRow } from "./sweep-row.js";
import type { VersionedRow } from "../../migrations/migration-store.js";
import type { Payload, StepContext } from "../../migrations/step.js";

const job = workerData as SweepJob;
const post = (m: SweepMessage) => parentPort!.postMessage(m);

function errorParts(err: unknown): { name: string; message: string } {
  return err instanceof Error ? { name: err.name, message: err.message } : { name: "Error", message: String(err) };
}

function visitorOf(j: SweepJob): (row: VersionedRow, ctx: StepContext) => Payload | undefined {
  if (j.direction === "forward") return forwardVisitor(j.version, STEPS);
  const { refusalOf, visit } = backwardVisitor(j.version, STEPS);
  // A record at a version the revert refuses is left to the pass, which refuses there, in order.
  return (row) => (refusalOf(row.version) ? undefined : visit(row));
}

function run(db: SqliteDatabase, j: SweepJob): number {
  const stmt = db.prepare(CHUNK_ROWS_SQL[j.direction]).raw(true);
  const read: RowSource = (lo, hi, v) => stmt.iterate(lo, hi, v) as Iterable<SweepRow>;
  const visit = visitorOf(j);
  const mint = j.direction === "forward" ? j.mint : undefined;
  // Deferred: the log head and every row come from one snapshot.
  return db.transaction(() => {
    const seq = db.prepare(CHANGE_LOG_HEAD_SQL).pluck().get() as number;
    for (;;) {
      const k = Atomics.add(j.claim, 0, 1);
      if (Atomics.load(j.claim, 1) !== 0) break;
      const keep = Atomics.load(j.chars, 0) < j.maxChars ? (j.direction === "forward" ? "all" : "quiet") : "none";
      let chunk;
      try {
        chunk = scanChunk(read, j.rids, k, j.chunkRows, j.version, visit, mint, keep, j.direction === "forward" ? "throw" : "skip");
      } catch (err) {
        if (!(err instanceof RowFailure)) throw err;
        Atomics.store(j.claim, 1, 1);
        post({ kind: "failed", k, rid: err.rid, ...errorParts(err.error) });
        break;
      }
      if (!chunk) break;
      Atomics.add(j.chars, 0, chunk.text.length);
      post({ kind: "chunk", k, seq, chunk });
    }
    return seq;
  })();
}

// Closed before "done": a connection left open would keep its read mark on
// the WAL, and no checkpoint of the main thread's writes could pass it.
const db = openSqlite(job.file, { readonly: true, fileMustExist: true });
let seq: number;
try {
  seq = run(db, job);
} finally {
  db.close();
}
post({ kind: "done", seq });
