import { Code } from "@connectrpc/connect";

/**
 * Stored data that cannot be read back as it was written: damaged pages, a
 * file that is no longer a database. Not the caller's fault and not
 * transient, so neither invalid_argument nor unavailable; and never
 * `internal`, which would hide from the operator that a restore is needed.
 */
export const DATA_LOSS_TEXT = "data loss: stored data is damaged and cannot be read; the operator must restore the store from a backup";

/** What makes an error `data_loss`: a short cause class for the log (SQLITE_CORRUPT), never a value or a path. */
export type DataLoss = { readonly cause?: string; readonly logged?: boolean };

/** The data loss an error declares, if it declares one. */
export function dataLossOf(err: unknown): DataLoss | undefined {
  if (!(err instanceof Error)) return undefined;
  const d = (err as { dataLoss?: { cause?: unknown; logged?: unknown } }).dataLoss;
  if (d === null || typeof d !== "object") return undefined;
  return {
    ...(typeof d.cause === "string" ? { cause: d.cause } : {}),
    ...(d.logged === true ? { logged: true } : {}),
  };
}

/** A plain data-loss error. Its message is the wire text. */
export class DataLossError extends Error {
  override readonly name = "DataLossError";
  readonly code = Code.DataLoss;
  readonly dataLoss: DataLoss;
  constructor(cause?: string, logged = false) {
    super(DATA_LOSS_TEXT);
    this.dataLoss = { ...(cause === undefined ? {} : { cause }), ...(logged ? { logged } : {}) };
  }
}
