import type { Subject } from "../core/index.js";
import type { TokenAuth } from "../core/static-tokens.js";

/** The part of a Node request (HTTP/1.1 or HTTP/2) the bearer check reads. */
export type HeaderSource = { headers: Record<string, string | string[] | undefined>; rawHeaders: readonly string[] };

/**
 * Resolves the caller from the one `Authorization` header. Node keeps only
 * the first of two such headers in `headers` on HTTP/1.1, so a request that
 * carries two could be read as whichever comes first; it is refused instead,
 * in anonymous mode too, because a client that sends two does not know which
 * identity it is using.
 */
export function authenticateRequest(auth: TokenAuth, req: HeaderSource): Subject | undefined {
  let seen = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === "authorization") seen++;
  }
  if (seen > 1) return undefined;
  const h = req.headers["authorization"];
  if (Array.isArray(h)) return h.length > 1 ? undefined : auth.authenticate(h[0]);
  return auth.authenticate(h);
}
