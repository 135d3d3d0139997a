export { HINT_TABLE, HINTS, ARGUMENT_HINTS, OPERATOR_HINTS, isHint, classOf } from "./vocabulary.js";
export type { Hint, ErrorClass, HintTier } from "./vocabulary.js";
export { render } from "./render.js";
export { parse } from "./parse.js";
export type { ParsedError } from "./parse.js";
export { ArgError, argError, responseTooLarge, RESPONSE_TOO_LARGE_DETAIL } from "./arg-error.js";
export type { Bounds } from "./arg-error.js";
export {
  REQUEST_FIELD,
  REQUEST_ENCODINGS,
  requestTooLarge,
  requestNotDecodable,
  requestEncodingUnsupported,
  requestTimeoutMalformed,
  fieldNotDecodable,
  UINT64_MAX,
  uint64Exceeded,
  exceedsMaximum,
} from "./request-error.js";
export { RULES, CLI_TIER_RULES, ruleError } from "./rules.js";
export type { RuleId, RuleTier } from "./rules.js";
export { CLASS_CONNECT_CODE, CONNECT_CODE_NAME } from "./connect-code.js";
export { EXIT_TABLE, EXIT, CONNECT_CODE_EXIT, exitForConnectCode } from "./exit-code.js";
export type { ExitCode, ExitName } from "./exit-code.js";
export {
  SENTINEL_TABLE,
  SentinelError,
  notFound,
  ambiguousShortId,
  alreadySuperseded,
  ruleImmutable,
  staleSummary,
  idempotencyConflict,
  writeContended,
} from "./sentinel.js";
export type { SentinelKind, RuleImmutableAction } from "./sentinel.js";
export {
  UNAVAILABLE_TABLE,
  UNAVAILABLE_PREFIX,
  UnavailableError,
  unavailableText,
  unavailabilityOf,
  isUnavailableReason,
} from "./unavailable.js";
export type { UnavailableReason, Unavailability } from "./unavailable.js";
export { DATA_LOSS_TEXT, DataLossError, dataLossOf } from "./data-loss.js";
export { isServerText } from "./server-text.js";
export type { DataLoss } from "./data-loss.js";
export { classify, ResponseTooLargeError, INTERNAL_TEXT } from "./classify.js";
export type { Classified } from "./classify.js";
export { connectDetails, reasonOf, ERROR_DOMAIN } from "./connect-details.js";
export type { ConnectDetail } from "./connect-details.js";
