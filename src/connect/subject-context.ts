import { Code, ConnectError, createContextKey, createContextValues, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import type { Subject } from "../core/index.js";
import type { TokenAuth } from "../core/static-tokens.js";
import { authenticateRequest, type HeaderSource } from "./request-auth.js";

const kSubject = createContextKey<Subject | undefined>(undefined, { description: "engram subject" });

/** The one unauthenticated answer of the Connect lane. */
export function unauthenticated(): ConnectError {
  return new ConnectError("a valid bearer token is required", Code.Unauthenticated);
}

/** Resolves the caller once per request from the bearer header, before any byte of the body is read. */
export function subjectContextValues(auth: TokenAuth) {
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

export function subjectOf(ctx: HandlerContext): Subject {
  const s = ctx.values.get(kSubject);
  if (!s) throw unauthenticated();
  return s;
}
