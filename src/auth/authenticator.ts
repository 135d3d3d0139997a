import type { AuthLane, AuthResult } from "./auth-result.js";

/**
 * What the listener asks "who is this?". The static-token lane is one
 * implementation; the composed bearer router (OIDC human, OIDC service, static
 * tokens, routed by token shape) is another, so neither the listener nor a
 * lane changes when a lane is added.
 *
 * `anonymous` is true only when no lane is configured: every caller is then
 * the anonymous subject (owner ""), and the server says so at start.
 */
export interface Authenticator {
  readonly anonymous: boolean;
  /** The bearer lanes configured, in routing order, for the words of a 401. */
  readonly lanes: readonly AuthLane[];
  /** What an `Authorization` header value proves; never throws, never logs the value. */
  resolve(authorizationHeader: string | undefined | null): Promise<AuthResult>;
}
