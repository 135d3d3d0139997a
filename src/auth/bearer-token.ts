/**
 * What a bearer token may hold, for the server that checks its token table
 * and for the CLI that sends one. Whitespace and control characters cannot
 * be part of `Authorization: Bearer <token>`.
 */
export const BEARER_TOKEN_FORBIDDEN = /[\s\u0000-\u001f\u007f]/;

/** A header carries Latin-1 at most: a token past it cannot be sent, whatever a table holds. */
const PAST_LATIN1 = /[\u0100-\uffff]/;

/** Whether a client cannot send this token in an Authorization header. */
export function bearerTokenUnsendable(token: string): boolean {
  return BEARER_TOKEN_FORBIDDEN.test(token) || PAST_LATIN1.test(token);
}
