import type { Unavailability } from "../argerror/unavailable.js";

/**
 * A failure of an embedding backend (unreachable, timed out, malformed or
 * mis-sized response). Messages never contain input texts or API keys.
 *
 * Timeouts are reported as this error rather than the raw `TimeoutError`
 * from `AbortSignal.timeout`, so callers do not mistake a slow provider for
 * a client cancellation.
 *
 * `unavailable` marks a failure that is the backend's state, not a bug
 * (unreachable, timed out, overloaded): every lane then answers
 * `unavailable` with a fixed sentence and logs the cause class at warn.
 */
export class EmbedderError extends Error {
  override readonly name = "EmbedderError";
  readonly unavailable?: Unavailability;
  constructor(message: string, unavailable?: Unavailability) {
    super(message);
    if (unavailable !== undefined) this.unavailable = unavailable;
  }
}
