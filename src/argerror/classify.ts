import { Code, ConnectError } from "@connectrpc/connect";
import { ArgError, responseTooLarge } from "./arg-error.js";
import { CLASS_CONNECT_CODE } from "./connect-code.js";
import { SentinelError } from "./sentinel.js";
import { DATA_LOSS_TEXT, dataLossOf } from "./data-loss.js";
import { unavailabilityOf, unavailableText } from "./unavailable.js";

/** Raised by a store when one record or one batch cannot fit the read budget. */
export class ResponseTooLargeError extends Error {
  override readonly name = "ResponseTooLargeError";
}

export type Classified = {
  code: Code;
  /** The text a client sees: an envelope, a sentinel, a fixed unavailable or data-loss text, or the fixed internal text. */
  message: string;
  argError?: ArgError;
  /** True when the real error must be logged server-side and never sent. */
  internal: boolean;
  /**
   * Set for `unavailable`: what the lane logs at warn (the reason and the
   * cause class, never a value). The caller sees only the fixed text.
   */
  warn?: { reason: string; cause?: string };
};

export const INTERNAL_TEXT = "internal error";

/**
 * The single business-error classifier every lane uses. Order matters:
 * envelopes first, then sentinels, unavailable, cancellation, the response
 * budget, data loss, and finally everything else collapses to "internal error".
 */
export function classify(err: unknown): Classified {
  if (err instanceof ArgError) {
    return { code: CLASS_CONNECT_CODE[err.errorClass], message: err.message, argError: err, internal: false };
  }
  if (err instanceof SentinelError) {
    return { code: err.code, message: err.message, internal: false };
  }
  const unavailable = unavailabilityOf(err);
  if (unavailable !== undefined) {
    const { logged, ...warn } = unavailable;
    const c: Classified = { code: Code.Unavailable, message: unavailableText(unavailable.reason), internal: false };
    return logged ? c : { ...c, warn };
  }
  const dataLoss = dataLossOf(err);
  if (dataLoss !== undefined) {
    // Logged by the store once per episode when it says so; else by the lane, at error.
    return { code: Code.DataLoss, message: DATA_LOSS_TEXT, internal: dataLoss.logged !== true };
  }
  if (err instanceof ConnectError && (err.code === Code.Canceled || err.code === Code.DeadlineExceeded)) {
    return { code: err.code, message: err.rawMessage, internal: false };
  }
  if (isAbort(err)) {
    return { code: Code.Canceled, message: "canceled", internal: false };
  }
  if (err instanceof ResponseTooLargeError) {
    // The caller asked for more than one response may carry: their request, not a server fault,
    // so no lane logs it as one (the access log's info line names the hint).
    const env = responseTooLarge();
    return { code: CLASS_CONNECT_CODE[env.errorClass], message: env.message, argError: env, internal: false };
  }
  return { code: Code.Internal, message: INTERNAL_TEXT, internal: true };
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}
