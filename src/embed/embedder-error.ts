/**
 * A failure of an embedding backend (unreachable, timed out, malformed or
 * mis-sized response). Messages never contain input texts or API keys.
 *
 * Timeouts are reported as this error rather than the raw `TimeoutError`
 * from `AbortSignal.timeout`, so callers do not mistake a slow provider for
 * a client cancellation.
 */
export class EmbedderError extends Error {
  override readonly name = "EmbedderError";
}
