import type { Subject } from "../model/subject.js";

/**
 * The lanes a caller can be known by. A bearer is routed by its shape (three
 * base64url segments go to the OIDC lanes, anything else to the static
 * tokens); a browser without a bearer may hold a console session cookie.
 * `none` is a request that carried no credential at all.
 */
export const AUTH_LANES = ["oidc", "service", "static", "cookie", "none"] as const;
export type AuthLane = (typeof AUTH_LANES)[number];

/**
 * Why a credential was refused, as far as a caller may learn it: the classes
 * an operator can act on (a clock, an audience, an issuer setting) and one
 * class for everything else. The sentence is what a 401 says; the key is the
 * /metrics label.
 */
export const AUTH_FAILURES = {
  missing: "no bearer token was sent",
  invalid: "the token was refused",
  expired: "the token has expired",
  wrong_audience: "the token is for another audience",
  unknown_issuer: "the token's issuer is not one this server accepts",
  // Not the caller's fault: answered 503 / `unavailable` rather than 401, so a client retries instead of signing in again.
  unavailable: "the identity provider could not be reached; try again",
} as const;
export type AuthFailure = keyof typeof AUTH_FAILURES;

/** What resolving one request's credential found. */
export type AuthResult =
  /**
   * For the cookie lane only: `csrf`, whether the request carried the
   * session's CSRF token (a write needs it); `renew`, the Set-Cookie values
   * that extend a session in use.
   */
  | { readonly ok: true; readonly subject: Subject; readonly lane: AuthLane; readonly csrf?: boolean; readonly renew?: readonly string[] }
  | { readonly ok: false; readonly lane: AuthLane; readonly failure: AuthFailure };

export function admitted(subject: Subject, lane: AuthLane, csrf?: boolean, renew?: readonly string[]): AuthResult {
  return Object.freeze({ ok: true, subject, lane, ...(csrf !== undefined ? { csrf } : {}), ...(renew !== undefined ? { renew } : {}) });
}

export function refused(lane: AuthLane, failure: AuthFailure): AuthResult {
  return Object.freeze({ ok: false, lane, failure });
}
