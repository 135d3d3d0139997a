import { Code, ConnectError, createContextKey, createContextValues, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { admissionOf, unauthenticatedMessage, type Authenticator } from "../auth/index.js";
import type { Subject } from "../model/subject.js";

/**
 * Connect's carrier for what src/auth decided. A Connect handler sees a
 * HandlerContext, not the Node request, so the answer the listener reached
 * (src/auth's admissionOf) rides in the context values; deciding who is
 * calling stays in src/auth, and only the Connect wording of a refusal is
 * said here.
 */
const kSubject = createContextKey<Subject | undefined>(undefined, { description: "engram subject" });
const kRefusal = createContextKey<string>("a valid bearer token is required", { description: "engram unauthenticated message" });

/** The one unauthenticated answer of the Connect lane, in the words the listener's answer calls for. */
export function unauthenticated(values?: ContextValues): ConnectError {
  return new ConnectError(values === undefined ? kRefusal.defaultValue : values.get(kRefusal), Code.Unauthenticated);
}

/** Carries the listener's answer for this request; a request it never decided has no subject. */
export function subjectContextValues(auth: Pick<Authenticator, "lanes">) {
  return (req: object) => {
    const values = createContextValues();
    const answer = admissionOf(req);
    if (answer?.ok) values.set(kSubject, answer.subject);
    else values.set(kRefusal, unauthenticatedMessage(auth.lanes, answer?.failure ?? "missing"));
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
  if (!s) throw unauthenticated(ctx.values);
  return s;
}
