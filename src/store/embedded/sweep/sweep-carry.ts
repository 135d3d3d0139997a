import type { MigrationStage } from "../migration-stage.js";
import type { SweepChunks } from "./sweep-chunks.js";

/** Rows per chunk a preflight or a worker computes at a time: one pass's worth at the CLI's batch size. */
export const SWEEP_CHUNK_ROWS = 2048;

/**
 * A revert's rewrites computed ahead of its passes (see
 * computeRevertAhead), and how many rows the passes have read so far,
 * which tells which chunk the next pass reads.
 */
export type RevertAhead = { to: number; stage: MigrationStage; sweep: SweepChunks; read: number };

/** The last count of records above a version, with the log head and data version it was true at. */
export type AboveCount = { version: number; seq: number; dv: number; n: number };

/**
 * What a sweep carries from one call of the migration store to the next:
 * what its preflight computed, its last count, what a revert computes
 * ahead. The migration store's calls and its passes share one.
 */
export class SweepCarry {
  /**
   * What the forward preflight computed, per pinned rid, for the passes to
   * write instead of running every step over the record a second time: the
   * encoded row, the indexed columns it was computed from, and whether its
   * write may be quiet (see rewritePass). `seq` is the change-log position
   * the entries are known to be current at. A record logged as written
   * after it, or whose short_id or schema_version column changed (which
   * every quiet write of another sweep does), is computed afresh.
   */
  staged: MigrationStage | undefined;

  /**
   * Counting the records above a version walks the whole index range, and a
   * revert counts once per pass: over a large store that is quadratic. So the
   * last count is kept with the change-log head and the data version it was
   * true at, and a pass that finds both unmoved (nothing else wrote in
   * between: another connection's commit moves the data version, a write of
   * this one the log head) hands on the count less the rows it moved down;
   * anything else forces a real count.
   */
  aboveCount: AboveCount | undefined;

  /** Set by computeRevertAhead while a revert runs with a worker. */
  revertAhead: RevertAhead | undefined;

  /** Makes sure the chunk the next pass reads is staged: computes one here, or waits for the worker's, whichever frees it sooner. */
  async readyAhead(ahead: RevertAhead): Promise<void> {
    const { sweep } = ahead;
    sweep.collect();
    const need = Math.floor(ahead.read / SWEEP_CHUNK_ROWS);
    while (need < sweep.chunks && !sweep.has(need)) {
      if (sweep.computeNext()) {
        // The worker's chunks arrive as messages, which only a turn of the event loop lets in.
        await new Promise<void>((resolve) => setImmediate(resolve));
        sweep.collect();
        continue;
      }
      if (!(await sweep.waitFor(need))) break;
    }
    // Trusted from the oldest snapshot any chunk staged so far was read at.
    if (Number.isFinite(sweep.seq)) ahead.stage.seq = sweep.seq;
  }

  dropAhead(): void {
    this.revertAhead?.sweep.stop();
    this.revertAhead = undefined;
  }
}
