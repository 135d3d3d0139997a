import { Code, ConnectError, createContextKey, createContextValues, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { authenticateRequest, type Authenticator, type HeaderSource } from "../auth/index.js";
import type { Subject } from "../model/subject.js";

/**
 * Connect's carrier for what src/auth decided. A Connect handler sees a
 * HandlerContext, not the Node request, so the subject auth admitted rides in
 * the context values; deciding who is calling stays in src/auth, and only
 * the Connect wording of a refusal is said here.
 */
const kSubject = createContextKey<Subject | undefined>(undefined, { description: "engram subject" });

/** The one unauthenticated answer of the Connect lane. */
export function unauthenticated(): ConnectError {
  return new ConnectError("a valid bearer token is required", Code.Unauthenticated);
}

/** Resolves the caller once per request from the bearer header, before any byte of the body is read. */
export function subjectContextValues(auth: Authenticator) {
  return (req: HeaderSource) => {
    const values = createContextValues();
    values.set(kSubject, authenticateRequest(auth, req));
    return values;
  };
}

/** The subject resolved for this request, if the bearer check passed. */
export function resolvedSubject(values: ContextValues): Subject | undefined {
  return values.get(kSubject);
}

/** The caller of a Connect handler; a request auth did not admit is refused as unauthenticated. */
export function requireSubject(ctx: HandlerContext): Subject {
  const s = ctx.values.get(kSubject);
  if (!s) throw unauthenticated();
  return s;
}
