import type { Subject } from "../model/subject.js";
import { refused, type AuthResult } from "./auth-result.js";
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
export async function authenticateRequest(auth: Authenticator, req: HeaderSource): Promise<AuthResult> {
  let seen = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === "authorization") seen++;
  }
  if (seen > 1) return refused("none", "invalid");
  const h = req.headers["authorization"];
  if (Array.isArray(h)) return h.length > 1 ? refused("none", "invalid") : auth.resolve(h[0]);
  return auth.resolve(h);
}

/**
 * Keyed by the request object itself, so an answer lives exactly as long as
 * its request and no handler can read another request's answer.
 */
const answers = new WeakMap<object, AuthResult>();

/**
 * Keeps the listener's answer with the request, for the handler it passes
 * the request on to (Connect, MCP), which reads it with `admissionOf` or
 * `subjectOf` instead of checking the credential again: the check may need
 * the network (an issuer's keys), and a handler's context is built
 * synchronously.
 */
export function admitRequest(req: object, answer: AuthResult): AuthResult {
  answers.set(req, answer);
  return answer;
}

/** What the listener decided for this request; undefined when it never decided. */
export function admissionOf(req: object): AuthResult | undefined {
  return answers.get(req);
}

/** The subject the listener admitted for this request; undefined when it admitted none or never ran. */
export function subjectOf(req: object): Subject | undefined {
  const a = answers.get(req);
  return a?.ok ? a.subject : undefined;
}
