/**
 * What a 401 says: which lanes this server accepts and how to send a token,
 * and of a token that was sent only its failure class, never more. The same
 * words go to every lane (the Connect message, the MCP and /metrics bodies)
 * and the class rides in `WWW-Authenticate` (RFC 6750 §3) beside the
 * protected-resource document's URL (RFC 9728 §5.1).
 */
import { AUTH_FAILURES, type AuthFailure, type AuthLane } from "./auth-result.js";

/** What a caller of each lane sends, as a 401 names it. */
const LANE_WORDS: Partial<Record<AuthLane, string>> = {
  oidc: "an OIDC access token",
  service: "a service client-credentials access token",
  static: "a static token",
};

/**
 * Said to a console session that was refused: its holder signed in through
 * the identity provider and has no token to send.
 */
export const SESSION_ENDED = "the console session has ended (signed out, or it expired); sign in again";

/**
 * The sentence every lane's 401 carries. A server with static tokens only
 * keeps the words its clients already know; a refused console session is
 * told to sign in again, not to send a bearer token.
 */
export function unauthenticatedMessage(lanes: readonly AuthLane[], failure: AuthFailure, lane?: AuthLane): string {
  if (failure === "unavailable") return AUTH_FAILURES.unavailable;
  if (lane === "cookie") return SESSION_ENDED;
  const base = "a valid bearer token is required";
  if (!lanes.some((l) => l === "oidc" || l === "service")) return base;
  const accepted = lanes.map((l) => LANE_WORDS[l]).filter((w): w is string => w !== undefined);
  return `${base}: ${AUTH_FAILURES[failure]}; send Authorization: Bearer <token> with ${accepted.join(", or ")}`;
}

/** The `WWW-Authenticate` value of a 401; `error="invalid_token"` only when a token was sent. */
export function bearerChallenge(failure: AuthFailure, resourceMetadataUrl: string | undefined): string {
  let value = 'Bearer realm="engram"';
  if (resourceMetadataUrl !== undefined) value += `, resource_metadata="${resourceMetadataUrl}"`;
  if (failure !== "missing") value += `, error="invalid_token", error_description="${AUTH_FAILURES[failure]}"`;
  return value;
}
