export type { Authenticator } from "./authenticator.js";
export { BEARER_TOKEN_FORBIDDEN, bearerTokenUnsendable } from "./bearer-token.js";
export { AUTH_TOKENS_ENV, AUTH_TOKENS_FILE_ENV, TokenAuth, loadTokenAuth, parseTokenSpec } from "./static-tokens.js";
export { admitRequest, authenticateRequest, subjectOf } from "./request-subject.js";
export type { HeaderSource } from "./request-subject.js";
export { MCP_OWNER_ENV, stdioSubject } from "./stdio-subject.js";
