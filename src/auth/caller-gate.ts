/**
 * Who is calling, as the listener asks it once per request: the console's
 * session cookie where the route takes it and no bearer was sent, else the
 * bearer lanes. The answer stays with the request (admitRequest) for the
 * Connect and MCP handlers; a refusal is counted by lane and class and
 * answered with one 401 shape everywhere.
 */
import type { AuthFailure, AuthLane, AuthResult } from "./auth-result.js";
import type { Authenticator } from "./authenticator.js";
import { bearerChallenge, unauthenticatedMessage } from "./challenge.js";
import { CSRF_HEADER } from "./csrf.js";
import type { ProtectedResource } from "./protected-resource.js";
import { admitRequest, authenticateRequest, type HeaderSource } from "./request-subject.js";
import type { ConsoleSession } from "./ui-session.js";

/** How long a caller waits before trying an unreachable identity provider again. */
const RETRY_AFTER_SECONDS = "5";

export type CallerGateOptions = {
  auth: Authenticator;
  protectedResource?: ProtectedResource;
  /** The console's sessions, when console sign-in is configured. */
  session?: ConsoleSession;
  onUnauthenticated?: (lane: AuthLane, failure: AuthFailure) => void;
};

export class CallerGate {
  readonly #o: CallerGateOptions;

  constructor(opts: CallerGateOptions) {
    this.#o = opts;
  }

  /** `cookie`: whether this route takes a console session (Connect does; MCP and /metrics take bearers only). */
  async resolve(req: HeaderSource, cookie: boolean): Promise<AuthResult> {
    let answer: AuthResult | undefined;
    // A bearer, even a bad one, is the caller's choice of lane: a cookie never overrides it.
    if (cookie && this.#o.session && req.headers.authorization === undefined) answer = await this.#o.session.resolve(req.headers.cookie, req.headers[CSRF_HEADER]);
    answer ??= await authenticateRequest(this.#o.auth, req);
    admitRequest(req, answer);
    if (!answer.ok) this.#o.onUnauthenticated?.(answer.lane, answer.failure);
    return answer;
  }

  /**
   * The headers a Connect answer carries for this request: a session's
   * renewal, the challenge of a refusal, or Retry-After while the identity
   * provider cannot be reached (Connect answers that `unavailable`, 503).
   */
  connectHeaders(answer: AuthResult): Record<string, string | string[]> {
    if (answer.ok) return answer.renew ? { "set-cookie": [...answer.renew] } : {};
    return answer.failure === "unavailable" ? { "retry-after": RETRY_AFTER_SECONDS } : { "www-authenticate": this.challenge(answer.failure) };
  }

  challenge(failure: AuthFailure): string {
    return bearerChallenge(failure, this.#o.protectedResource?.metadataUrl);
  }

  /**
   * The JSON answer of the routes the listener answers itself (`/mcp`,
   * `/metrics`): the body a Connect call gets for the same credential, its
   * code name and message, with 401 and the challenge, or 503 when the
   * identity provider could not be reached.
   */
  refusal(failure: AuthFailure): { status: 401 | 503; body: { code: string; message: string }; headers: Record<string, string> } {
    const message = unauthenticatedMessage(this.#o.auth.lanes, failure);
    if (failure === "unavailable") return { status: 503, body: { code: "unavailable", message }, headers: { "retry-after": RETRY_AFTER_SECONDS } };
    return { status: 401, body: { code: "unauthenticated", message }, headers: { "www-authenticate": this.challenge(failure) } };
  }
}
