/** The largest request body engram reads, counted on the wire and again after decompression. */
export const MAX_REQUEST_BYTES_ENV = "ENGRAM_MAX_REQUEST_BYTES";

/**
 * 4 MiB: above the largest request the core accepts (a discovery with 64 KiB
 * of content and 50 citations of 16 KiB excerpts stays under 1 MiB, and
 * under 4 MiB even with every character JSON-escaped), and equal to the
 * response budget.
 */
export const DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** 1 GiB: a body is read whole before it is decoded, so the limit is memory held per request. */
export const MAX_MAX_REQUEST_BYTES = 1024 * 1024 * 1024;

/** Reads the limit; a malformed or too large value fails startup rather than falling back. */
export function maxRequestBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[MAX_REQUEST_BYTES_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_MAX_REQUEST_BYTES;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1 || n > MAX_MAX_REQUEST_BYTES) {
    throw new Error(`${MAX_REQUEST_BYTES_ENV} must be a positive integer (bytes) of at most ${MAX_MAX_REQUEST_BYTES}`);
  }
  return n;
}
