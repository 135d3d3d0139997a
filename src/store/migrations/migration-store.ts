import type { Payload } from "./step.js";

/** "gone": the record was deleted meanwhile; nothing was written, nothing resurrected. */
export type WriteOutcome = "ok" | "gone" | Error;

export type VersionedRow = { id: string; version: number; payload: Payload };

/**
 * What the migration engine needs from a store. Versions are read from the
 * stored key (absent reads as 0); writes go through the record codec with
 * the version given.
 */
export interface MigrationStore {
  /** Records below `target`, or only those also in the pinned set when one is pinned. */
  countBelow(target: number, pinnedOnly: boolean): number;
  batchBelow(target: number, limit: number, pinnedOnly: boolean): VersionedRow[];
  /** Pins the ids currently below target (the preview) for this connection. */
  pinBelow(target: number): number;
  /** Pinned rows below target with id > after, ordered by id. */
  pinnedPage(target: number, after: string, limit: number): VersionedRow[];
  countAbove(version: number): number;
  batchAbove(version: number, limit: number): VersionedRow[];
  versionHistogramAbove(version: number): Map<number, number>;
  /** Updates each row's payload at `version` in one transaction; never inserts. */
  writeAtVersion(rows: readonly { id: string; payload: Payload }[], version: number): WriteOutcome[];
}
