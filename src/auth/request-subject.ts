import type { Subject } from "../model/subject.js";
import type { Authenticator } from "./authenticator.js";

/** The part of a Node request (HTTP/1.1 or HTTP/2) the bearer check reads. */
export type HeaderSource = { headers: Record<string, string | string[] | undefined>; rawHeaders: readonly string[] };

/**
 * Resolves the caller from the one `Authorization` header. Node keeps only
 * the first of two such headers in `headers` on HTTP/1.1, so a request that
 * carries two could be read as whichever comes first; it is refused instead,
 * in anonymous mode too, because a client that sends two does not know which
 * identity it is using.
 */
export function authenticateRequest(auth: Authenticator, req: HeaderSource): Subject | undefined {
  let seen = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === "authorization") seen++;
  }
  if (seen > 1) return undefined;
  const h = req.headers["authorization"];
  if (Array.isArray(h)) return h.length > 1 ? undefined : auth.authenticate(h[0]);
  return auth.authenticate(h);
}

/**
 * Keyed by the request object itself, so an answer lives exactly as long as
 * its request and no handler can read another request's subject.
 */
const admitted = new WeakMap<object, Subject>();

/**
 * Authenticates a request and keeps the answer with it, for a handler the
 * listener passes the request on to (the MCP handler), which reads it with
 * `subjectOf` instead of checking the token again. Connect asks
 * `authenticateRequest` itself and carries the answer in its handler context.
 */
export function admitRequest(auth: Authenticator, req: HeaderSource): Subject | undefined {
  const subject = authenticateRequest(auth, req);
  if (subject !== undefined) admitted.set(req, subject);
  return subject;
}

/** The subject `admitRequest` found for this request; undefined when it found none or never ran. */
export function subjectOf(req: object): Subject | undefined {
  return admitted.get(req);
}
