import { Code, ConnectError, createContextKey, createContextValues, type HandlerContext } from "@connectrpc/connect";
import type { Subject } from "../core/index.js";
import type { TokenAuth } from "../core/static-tokens.js";

const kSubject = createContextKey<Subject | undefined>(undefined, { description: "engram subject" });

/** Resolves the caller once per request from the bearer header. */
export function subjectContextValues(auth: TokenAuth) {
  return (req: { headers: Record<string, string | string[] | undefined> }) => {
    const values = createContextValues();
    const h = req.headers["authorization"];
    values.set(kSubject, auth.authenticate(Array.isArray(h) ? h[0] : h));
    return values;
  };
}

export function subjectOf(ctx: HandlerContext): Subject {
  const s = ctx.values.get(kSubject);
  if (!s) throw new ConnectError("a valid bearer token is required", Code.Unauthenticated);
  return s;
}
