import type { Payload } from "./step.js";

/** "gone": the record was deleted meanwhile; nothing was written, nothing resurrected. */
export type WriteOutcome = "ok" | "gone" | Error;

export type VersionedRow = { id: string; version: number; payload: Payload };

/** Which rows a pass reads: the pinned backlog still below a target, or every record above a version. */
export type PassSource = { pinnedBelow: number } | { above: number };

/**
 * What a pass does with one row: the payload to write, or `undefined` to end
 * the pass at that row (the rows before it are still written).
 */
export type RowRewrite = (row: VersionedRow) => Payload | undefined;

/**
 * What the migration engine needs from a store. Versions are read from the
 * stored key (absent reads as 0); writes go through the record codec with
 * the version given.
 */
export interface MigrationStore {
  /**
   * Pins the records currently below `target` (the preview) for this
   * connection and makes them the pending backlog; returns how many.
   */
  pinBelow(target: number): number;
  /**
   * Pinned records not yet written nor found ineligible by a pass. Never
   * grows; a write that fails leaves its record pending, so it is retried.
   */
  pendingCount(): number;
  /** Records below `target`, or only those also in the pinned set. */
  countBelow(target: number, pinnedOnly: boolean): number;
  /** Visits every pinned record still below `target`, without writing. */
  scanPinned(target: number, visit: (row: VersionedRow) => void): void;
  countAbove(version: number): number;
  versionHistogramAbove(version: number): Map<number, number>;
  /**
   * One pass of a convergence loop, atomically: reads up to `limit` rows of
   * `source` (pinned records no longer below the target leave the backlog
   * unwritten), and writes `rewrite(row)` at `version` over each, all in one
   * transaction, so nothing can change a row between its read and its write.
   * An error thrown by `rewrite` rolls the whole pass back and propagates.
   */
  rewritePass(source: PassSource, limit: number, version: number, rewrite: RowRewrite): WriteOutcome[];
}
