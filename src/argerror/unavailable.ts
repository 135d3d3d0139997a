import { Code } from "@connectrpc/connect";

/**
 * The service cannot take this request now; nothing about the request was
 * wrong, and the identical request may succeed later. One row per reason,
 * each a fixed sentence: no caller value, no internal text, no address.
 * A new condition (for example a store that cannot accept writes because
 * the disk is full) is one more row here; every lane picks it up from the
 * classifier.
 */
export const UNAVAILABLE_TABLE = {
  embedder_at_capacity: { sentence: "the embedder is at capacity; retry shortly" },
  embedder_unreachable: { sentence: "the embedder cannot be reached; retry shortly" },
  embedder_timed_out: { sentence: "the embedder did not answer in time; retry shortly" },
} as const satisfies Record<string, { sentence: string }>;

export type UnavailableReason = keyof typeof UNAVAILABLE_TABLE;

/** Every unavailable text starts with this, so a client can match the prefix. */
export const UNAVAILABLE_PREFIX = "unavailable";

/** The text a caller sees for `reason`, identical on Connect, MCP and the CLI. */
export function unavailableText(reason: UnavailableReason): string {
  return `${UNAVAILABLE_PREFIX}: ${UNAVAILABLE_TABLE[reason].sentence}`;
}

/**
 * What makes an error `unavailable`: a reason from the table and, for the
 * server log only, a short cause class (ECONNREFUSED, timeout, HTTP 503),
 * never a value, an address or a provider's free text. Any error carrying
 * this under `unavailable` is classified so, which lets a backend keep its
 * own error type (an EmbedderError stays one) and still speak the vocabulary.
 */
export type Unavailability = { readonly reason: UnavailableReason; readonly cause?: string };

export function isUnavailableReason(value: unknown): value is UnavailableReason {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(UNAVAILABLE_TABLE, value);
}

/** The unavailability an error declares, if it declares a known one. */
export function unavailabilityOf(err: unknown): Unavailability | undefined {
  if (!(err instanceof Error)) return undefined;
  const u = (err as { unavailable?: { reason?: unknown; cause?: unknown } }).unavailable;
  if (u === null || typeof u !== "object" || !isUnavailableReason(u.reason)) return undefined;
  return typeof u.cause === "string" ? { reason: u.reason, cause: u.cause } : { reason: u.reason };
}

/** A plain unavailable error, for code with no error type of its own. Its message is the wire text. */
export class UnavailableError extends Error {
  override readonly name = "UnavailableError";
  readonly code = Code.Unavailable;
  readonly unavailable: Unavailability;
  constructor(reason: UnavailableReason, cause?: string) {
    super(unavailableText(reason));
    this.unavailable = cause === undefined ? { reason } : { reason, cause };
  }
}
