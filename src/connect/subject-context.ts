import { Code, ConnectError, createContextKey, createContextValues, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { admissionOf, unauthenticatedMessage, type Authenticator } from "../auth/index.js";
import { OPERATION_ROWS } from "../core/index.js";
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
/** The identity provider could not be reached: the caller is told to retry (`unavailable`), not to sign in again. */
const kIssuerDown = createContextKey<boolean>(false, { description: "engram identity provider unreachable" });
/** A console session (cookie lane) whose request did not carry its CSRF token: it may read, not write. */
const kNoCsrf = createContextKey<boolean>(false, { description: "engram console session without csrf" });

/**
 * The procedures that change nothing (the operation table's read-only rows),
 * which a console session may call without its CSRF token. Every other
 * procedure, including one added later, needs it: the list fails closed.
 */
const READ_ONLY_PROCEDURES: ReadonlySet<string> = new Set(
  OPERATION_ROWS.filter((r) => r.hints.read_only).map((r) => r.name.charAt(0).toUpperCase() + r.name.slice(1)),
);

/** permission_denied for a console session's write without its CSRF token; bearer callers are exempt. */
export function csrfRefusal(values: ContextValues | undefined, procedure: string): ConnectError | undefined {
  if (values === undefined || !values.get(kNoCsrf) || READ_ONLY_PROCEDURES.has(procedure)) return undefined;
  return new ConnectError("csrf: a console session's write needs the X-CSRF-Token header, equal to its engram_csrf cookie", Code.PermissionDenied);
}

/** The one unauthenticated answer of the Connect lane, in the words the listener's answer calls for. */
export function unauthenticated(values?: ContextValues): ConnectError {
  const message = values === undefined ? kRefusal.defaultValue : values.get(kRefusal);
  return new ConnectError(message, values?.get(kIssuerDown) ? Code.Unavailable : Code.Unauthenticated);
}

/** Carries the listener's answer for this request; a request it never decided has no subject. */
export function subjectContextValues(auth: Pick<Authenticator, "lanes">) {
  return (req: object) => {
    const values = createContextValues();
    const answer = admissionOf(req);
    if (answer?.ok) {
      values.set(kSubject, answer.subject);
      values.set(kNoCsrf, answer.lane === "cookie" && answer.csrf !== true);
    } else {
      values.set(kRefusal, unauthenticatedMessage(auth.lanes, answer?.failure ?? "missing", answer?.lane));
      values.set(kIssuerDown, answer?.failure === "unavailable");
    }
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
