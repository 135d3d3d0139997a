import type { Subject } from "../model/subject.js";

/**
 * A bearer lane: what the listener and every lane ask "who is this?". The
 * static-token lane is one; an OIDC lane (human or client-credentials) is
 * another, routed by token shape behind this same shape, so neither the
 * listener nor a lane changes when one is added.
 *
 * `anonymous` is true only when no lane is configured: every caller is then
 * the anonymous subject (owner ""), and the server says so at start.
 */
export interface Authenticator {
  readonly anonymous: boolean;
  /** The subject an `Authorization` header value proves, or undefined when it proves none. */
  authenticate(authorizationHeader: string | undefined | null): Subject | undefined;
}
