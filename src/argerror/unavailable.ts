import { Code } from "@connectrpc/connect";

/**
 * The service cannot take this request now; nothing about the request was
 * wrong, and the identical request may succeed later. One row per reason,
 * each a fixed sentence: no caller value, no internal text, no address.
 * A new condition is one more row here; every lane picks it up from the
 * classifier. The store rows cover a full disk, a read-only file system and
 * I/O errors alike: the caller can only wait, the operator reads the cause
 * in the log.
 */
export const UNAVAILABLE_TABLE = {
  embedder_at_capacity: { sentence: "the embedder is at capacity; retry shortly" },
  embedder_unreachable: { sentence: "the embedder cannot be reached; retry shortly" },
  embedder_timed_out: { sentence: "the embedder did not answer in time; retry shortly" },
  store_cannot_write: { sentence: "the store cannot accept writes now; retry later" },
  store_cannot_read: { sentence: "the store cannot be read now; retry later" },
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
export type Unavailability = {
  readonly reason: UnavailableReason;
  readonly cause?: string;
  /**
   * The backend has logged this condition already, once for the whole
   * episode (a full disk fails every write until space returns), so the
   * lanes do not log it again per request.
   */
  readonly logged?: boolean;
};

export function isUnavailableReason(value: unknown): value is UnavailableReason {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(UNAVAILABLE_TABLE, value);
}

/** The unavailability an error declares, if it declares a known one. */
export function unavailabilityOf(err: unknown): Unavailability | undefined {
  if (!(err instanceof Error)) return undefined;
  const u = (err as { unavailable?: { reason?: unknown; cause?: unknown; logged?: unknown } }).unavailable;
  if (u === null || typeof u !== "object" || !isUnavailableReason(u.reason)) return undefined;
  return {
    reason: u.reason,
    ...(typeof u.cause === "string" ? { cause: u.cause } : {}),
    ...(u.logged === true ? { logged: true } : {}),
  };
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
