import { ascendingShortIdValues } from "../../model/short-id.js";
import type { BatchBudget, MigrationStore, PassSource, RowRewrite, VersionedRow, WriteOutcome } from "../migrations/migration-store.js";
import type { Payload, StepContext } from "../migrations/step.js";
import type { StoreHandle } from "./handle.js";
import { MigrationStage, STAGE_MAX_CHARS } from "./migration-stage.js";
import type { Mirror } from "./mirror.js";
import type { RecordWrites } from "./record-writes.js";
import { SWEEP_CHUNK_ROWS, SweepCarry } from "./sweep/sweep-carry.js";
import { SweepCheckpoints } from "./sweep/sweep-checkpoints.js";
import { SweepChunks, type ComputeHere } from "./sweep/sweep-chunks.js";
import { SweepPass } from "./sweep/sweep-pass.js";
import { CHUNK_ROWS_SQL, scanChunk, type RowSource, type SweepDirection, type SweepRow } from "./sweep/sweep-row.js";

/**
 * A sweep worker took 64-102 ms from start to a first answer compiled
 * (180-265 ms from the TypeScript sources), while the main thread computes
 * about 2,000 records in 30 ms: below a few thousand records it cannot pay
 * for itself. 20,000 leaves a margin; the threshold is a choice, not a
 * measured break-even.
 */
export const SWEEP_WORKER_FROM = 20_000;

/**
 * Records below a version, as two index ranges: an OR over NULL and `<`
 * would scan the whole table instead.
 */
const BELOW_RIDS = `SELECT rid FROM records WHERE schema_version IS NULL
    UNION ALL SELECT rid FROM records WHERE schema_version < ?`;

/**
 * The embedded store's migration engine (MigrationStore): the pin and the
 * backlog in temporary tables of this connection, the forward preflight and
 * a revert's rewrites computed in chunks by this thread and a worker, and
 * the passes (sweep-pass.ts) that write them.
 */
export class EmbeddedMigrationStore implements MigrationStore {
  private readonly carry = new SweepCarry();
  private readonly checkpoints: SweepCheckpoints;
  private readonly pass: SweepPass;

  constructor(
    private readonly h: StoreHandle,
    m: Mirror,
    writes: RecordWrites,
  ) {
    this.checkpoints = new SweepCheckpoints(h);
    this.pass = new SweepPass(h, m, writes, this.checkpoints, this.carry);
  }

  /**
   * The pin table holds the preview's records, by rid; the pending table
   * starts as a copy and loses each record once a pass has written it or
   * found it no longer eligible, so a pass reads the head of what is left
   * and counting the backlog costs nothing like a scan of the store.
   */
  async pinBelow(target: number): Promise<number> {
    this.checkpoints.tune();
    this.carry.staged = undefined;
    this.carry.dropAhead();
    this.h.db.exec(`CREATE TEMP TABLE IF NOT EXISTS migrate_pin (rid INTEGER PRIMARY KEY);
      CREATE TEMP TABLE IF NOT EXISTS migrate_pending (rid INTEGER PRIMARY KEY);
      DELETE FROM temp.migrate_pin; DELETE FROM temp.migrate_pending;`);
    const n = this.h.db.prepare(`INSERT INTO temp.migrate_pin (rid) ${BELOW_RIDS}`).run(target).changes;
    this.h.db.exec("INSERT INTO temp.migrate_pending (rid) SELECT rid FROM temp.migrate_pin");
    return n;
  }

  async pendingCount(): Promise<number> {
    const n = (this.h.stmt("SELECT count(*) AS n FROM temp.migrate_pending").get() as { n: number }).n;
    // Nothing left to write: what the preflight kept is not needed any more.
    if (n === 0) {
      this.carry.staged = undefined;
      await this.checkpoints.here();
    }
    return n;
  }

  async countBelow(target: number, pinnedOnly: boolean): Promise<number> {
    const sql = pinnedOnly
      ? `SELECT count(*) AS n FROM temp.migrate_pin p JOIN records r ON r.rid = p.rid
           WHERE r.schema_version IS NULL OR r.schema_version < ?`
      : `SELECT count(*) AS n FROM (${BELOW_RIDS})`;
    return (this.h.stmt(sql).get(target) as { n: number }).n;
  }

  /**
   * The pin in chunks of rids (see SweepChunks), each read in one read
   * transaction. What `visit` returns is encoded and kept for the passes
   * (up to STAGE_MAX_CHARS of payload text; past that a pass computes the
   * rest again). Records mint from one ascending list of ids, so the
   * passes, writing in rid order, fill the short_id index in order.
   *
   * With the shipped registry and at least `sweepWorkerFrom` pinned records
   * in a file, a worker thread computes chunks too: on two cores that about
   * halves the preflight. The first rewrite that throws stops both, and the
   * failure of the lowest rid is the one raised, as one thread alone would
   * have met it.
   */
  async scanPinned(target: number, _budget: BatchBudget, visit: (row: VersionedRow, ctx: StepContext) => Payload | void, shipped: boolean): Promise<void> {
    this.carry.staged = undefined;
    const stage = new MigrationStage(target, 0);
    // Read before any chunk's snapshot, and again after the last.
    const dataVersion = this.h.readDataVersion();
    const rids = this.sharedRids(this.h.stmt("SELECT rid FROM temp.migrate_pin ORDER BY rid").pluck().all() as number[]);
    const mint = ascendingShortIdValues(rids.length);
    const file = this.h.fileName();
    const worker = shipped && file !== undefined && rids.length >= (this.h.opts.sweepWorkerFrom ?? SWEEP_WORKER_FROM) ? { file, mint } : undefined;
    const sweep = new SweepChunks("forward", target, rids, SWEEP_CHUNK_ROWS, STAGE_MAX_CHARS, stage, this.chunkHere("forward", target, rids, visit, mint, "throw"), worker);
    try {
      while (sweep.computeNext());
      await sweep.settle();
    } catch (err) {
      // A read that failed on a damaged file: the check's refusal says why.
      await this.h.integrityChecked();
      throw err;
    } finally {
      sweep.stop();
    }
    if (sweep.failure) throw sweep.failure.error;
    stage.seq = Number.isFinite(sweep.seq) ? sweep.seq : this.h.headSeq();
    // No other connection committed while the preflight read: every entry holds what its record holds now.
    stage.trustedAt = this.h.readDataVersion() === dataVersion ? dataVersion : undefined;
    this.carry.staged = stage;
  }

  /** Rids in a buffer a worker thread can read too. */
  private sharedRids(list: number[]): Float64Array {
    const rids = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, list.length)), 0, list.length);
    rids.set(list);
    return rids;
  }

  /** How the main thread computes chunk k of a sweep over `rids`: in a read transaction of its own, with the log head it read at. */
  private chunkHere(
    direction: SweepDirection,
    version: number,
    rids: Float64Array,
    visit: (row: VersionedRow, ctx: StepContext) => Payload | void | undefined,
    mint: Float64Array | undefined,
    failures: "throw" | "skip",
  ): ComputeHere {
    const stmt = this.h.stmt(CHUNK_ROWS_SQL[direction]).raw(true);
    const read: RowSource = (lo, hi, v) => stmt.iterate(lo, hi, v) as Iterable<SweepRow>;
    return (k, keep) =>
      // Deferred: the log head and the rows are read from one snapshot.
      this.h.db.transaction(() => {
        const seq = this.h.headSeq();
        return { seq, chunk: scanChunk(read, rids, k, SWEEP_CHUNK_ROWS, version, visit, mint, keep, failures) };
      })();
  }

  async countAbove(version: number): Promise<number> {
    const seq = this.h.headSeq();
    const dv = this.h.readDataVersion();
    const known = this.carry.aboveCount;
    if (known && known.version === version && known.seq === seq && known.dv === dv) return known.n;
    const n = (this.h.stmt("SELECT count(*) AS n FROM records WHERE schema_version > ?").get(version) as { n: number }).n;
    this.carry.aboveCount = { version, seq, dv, n };
    // Nothing left to revert: what the worker computed is not needed any more.
    if (n === 0 && this.carry.revertAhead?.to === version) this.carry.dropAhead();
    if (n === 0) await this.checkpoints.here();
    return n;
  }

  async versionHistogramAbove(version: number): Promise<Map<number, number>> {
    this.checkpoints.tune();
    const rows = this.h.db
      .prepare("SELECT schema_version AS v, count(*) AS n FROM records WHERE schema_version > ? GROUP BY schema_version")
      .all(version) as { v: number; n: number }[];
    return new Map(rows.map((r) => [r.v, r.n]));
  }

  /**
   * With the shipped registry and at least `sweepWorkerFrom` records above
   * `to` in a file, a worker thread computes the revert's rewrites in
   * chunks, in the order the passes read records, and the passes write them
   * (checked like a forward preflight's) while it computes the next; the
   * main thread computes a chunk itself only when the pass it is about to
   * write is not ready. A record left out (it changed since, its version
   * refuses, its inverse misbehaves) is computed by the pass, which refuses
   * or fails exactly as it would alone.
   */
  computeRevertAhead(to: number, visit: (row: VersionedRow) => Payload | undefined): void {
    this.carry.dropAhead();
    const file = this.h.fileName();
    if (file === undefined) return;
    const list = this.h.stmt("SELECT rid FROM records WHERE schema_version > ? ORDER BY schema_version, rid").pluck().all(to) as number[];
    if (list.length < (this.h.opts.sweepWorkerFrom ?? SWEEP_WORKER_FROM)) return;
    const rids = this.sharedRids(list);
    const stage = new MigrationStage(to, 0);
    const here = this.chunkHere("backward", to, rids, visit, undefined, "skip");
    const sweep = new SweepChunks("backward", to, rids, SWEEP_CHUNK_ROWS, STAGE_MAX_CHARS, stage, here, { file, mint: undefined });
    this.carry.revertAhead = { to, stage, sweep, read: 0 };
  }

  rewritePass(source: PassSource, budget: BatchBudget, version: number, rewrite: RowRewrite): Promise<WriteOutcome[]> {
    return this.pass.run(source, budget, version, rewrite);
  }

  /** At close: a revert's worker stopped and the checkpoints back on this connection, so it is the last and folds the WAL in. */
  async stop(): Promise<void> {
    const ahead = this.carry.revertAhead;
    this.carry.dropAhead();
    await ahead?.sweep.stopped();
    await this.checkpoints.here();
  }
}
