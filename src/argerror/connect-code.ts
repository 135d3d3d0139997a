import { Code } from "@connectrpc/connect";
import type { ErrorClass } from "./vocabulary.js";

/**
 * Class → Connect code. The class, never the detail text, picks the code.
 * `out_of_range` the hint is Malformed by decision, so it lands on
 * invalid_argument; the out_of_range *class* is for byte and count bounds.
 */
export const CLASS_CONNECT_CODE: Record<ErrorClass, Code> = {
  malformed: Code.InvalidArgument,
  out_of_range: Code.OutOfRange,
  precondition: Code.FailedPrecondition,
  response: Code.ResourceExhausted,
};

/** The lower_snake names Connect uses on the wire, keyed by code. */
export const CONNECT_CODE_NAME: Record<Code, string> = {
  [Code.Canceled]: "canceled",
  [Code.Unknown]: "unknown",
  [Code.InvalidArgument]: "invalid_argument",
  [Code.DeadlineExceeded]: "deadline_exceeded",
  [Code.NotFound]: "not_found",
  [Code.AlreadyExists]: "already_exists",
  [Code.PermissionDenied]: "permission_denied",
  [Code.ResourceExhausted]: "resource_exhausted",
  [Code.FailedPrecondition]: "failed_precondition",
  [Code.Aborted]: "aborted",
  [Code.OutOfRange]: "out_of_range",
  [Code.Unimplemented]: "unimplemented",
  [Code.Internal]: "internal",
  [Code.Unavailable]: "unavailable",
  [Code.DataLoss]: "data_loss",
  [Code.Unauthenticated]: "unauthenticated",
};
