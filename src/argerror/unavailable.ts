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
 * Raised by a backend that cannot serve right now. `causeClass` is a short
 * machine token for the server log only (ECONNREFUSED, timeout, HTTP 503),
 * never a value, an address or a provider's free text; it is never sent.
 */
export class UnavailableError extends Error {
  override readonly name = "UnavailableError";
  readonly code = Code.Unavailable;
  constructor(
    readonly reason: UnavailableReason,
    readonly causeClass?: string,
  ) {
    super(unavailableText(reason));
  }
}
