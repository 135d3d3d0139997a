import type { Payload, StepContext } from "./step.js";

/** "gone": the record was deleted meanwhile; nothing was written, nothing resurrected. */
export type WriteOutcome = "ok" | "gone" | Error;

export type VersionedRow = { id: string; version: number; payload: Payload };

/** Which rows a pass reads: the pinned backlog still below a target, or every record above a version. */
export type PassSource = { pinnedBelow: number } | { above: number };

/**
 * How much one batch may hold: at most `rows` records and, past the first
 * record, at most `bytes` of stored payload. A store without transactions
 * (Qdrant) sizes its requests from it; one record larger than the budget is
 * still a batch of its own.
 */
export type BatchBudget = { rows: number; bytes: number };

/**
 * What a pass does with one row: the payload to write, or `undefined` to end
 * the pass at that row (the rows before it are still written).
 */
export type RowRewrite = (row: VersionedRow) => Payload | undefined;

/**
 * What the migration engine needs from a store, in batches, so one engine
 * serves a store that answers in-process (embedded) and one that answers
 * over the network (Qdrant). Versions are read from the stored key (absent
 * reads as 0); writes go through the record codec with the version given
 * and a fresh revision, so a conditional writer that read a row before the
 * sweep wrote it cannot overwrite what the sweep wrote.
 */
export interface MigrationStore {
  /**
   * Pins the records currently below `target` (the preview) for this
   * migration and makes them the pending backlog; returns how many.
   */
  pinBelow(target: number): Promise<number>;
  /**
   * Pinned records not yet written nor found ineligible by a pass. Never
   * grows; a write that fails (or loses a race) leaves its record pending,
   * so it is retried.
   */
  pendingCount(): Promise<number>;
  /** Records below `target`, or only those also in the pinned set. */
  countBelow(target: number, pinnedOnly: boolean): Promise<number>;
  /**
   * Visits every pinned record still below `target`, in batches within
   * `budget`, without writing. `visit` may return the payload a pass would
   * write for that record; a store may keep it and, in the pass that reaches
   * the record at `target`, write it instead of calling that pass's
   * `rewrite`, provided the record has not changed since the scan. A store
   * may as well ignore it and call `rewrite`. The store hands `visit` the
   * context each record's new ids are minted from, so it may choose their
   * order to suit its indexes. `shipped`: `visit` is the shipped registry's
   * forward sweep to `target` (runner.forwardVisitor over STEPS), so a store
   * may run part of the scan on another thread with that instead.
   */
  scanPinned(target: number, budget: BatchBudget, visit: (row: VersionedRow, ctx: StepContext) => Payload | void, shipped: boolean): Promise<void>;
  /**
   * Called once before the passes of a revert to `to` with the shipped
   * registry: a store may compute rewrites ahead with `visit` (undefined:
   * the record's version refuses) or, on another thread, with the same
   * runner.backwardVisitor over STEPS, for rewritePass to write instead of
   * calling its `rewrite`, provided each record is unchanged since.
   */
  computeRevertAhead?(to: number, visit: (row: VersionedRow) => Payload | undefined): void;
  countAbove(version: number): Promise<number>;
  versionHistogramAbove(version: number): Promise<Map<number, number>>;
  /**
   * One pass of a convergence loop: reads one batch of `source` within
   * `budget` (pinned records no longer below the target leave the backlog
   * unwritten) and writes `rewrite(row)` at `version` over each, so that
   * nothing written to a row between its read and its write is lost: the
   * embedded store runs the pass in one transaction; a store without
   * transactions writes each row only if it is unchanged since the read,
   * and a row that changed stays in the backlog for the next pass. An error
   * thrown by `rewrite` writes nothing of the batch and propagates.
   */
  rewritePass(source: PassSource, budget: BatchBudget, version: number, rewrite: RowRewrite): Promise<WriteOutcome[]>;
}
