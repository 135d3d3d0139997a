import { Code } from "@connectrpc/connect";

/** The CLI's exit statuses. CI scripts branch on these numbers. */
export const EXIT_TABLE = {
  ok: { code: 0, meaning: "success, including an empty result" },
  unclassified: { code: 1, meaning: "unclassified failure: a mistyped command, data_loss (stored data is damaged), or an error with no better status" },
  usage: { code: 2, meaning: "usage or validation: a bad flag, or invalid_argument, out_of_range, failed_precondition" },
  auth: { code: 3, meaning: "unauthenticated or permission_denied" },
  not_found: { code: 4, meaning: "not_found" },
  unavailable: { code: 5, meaning: "unavailable or canceled: the server could not be reached, or cannot take the request now" },
  timeout: { code: 6, meaning: "deadline_exceeded: the --timeout fired" },
  findings: { code: 7, meaning: "findings under an explicit --fail-on; the command itself succeeded" },
  too_large: { code: 10, meaning: "resource_exhausted: the response would be too large" },
} as const;

export type ExitName = keyof typeof EXIT_TABLE;
export type ExitCode = (typeof EXIT_TABLE)[ExitName]["code"];

export const EXIT = Object.fromEntries(
  Object.entries(EXIT_TABLE).map(([name, row]) => [name, row.code]),
) as { [K in ExitName]: (typeof EXIT_TABLE)[K]["code"] };

/**
 * Connect code → exit status, exhaustive over every code so a new code cannot
 * fall through silently. Exit 7 is deliberately absent: no error produces it.
 * data_loss stays on 1: the published set of statuses is fixed, and a
 * script can do nothing with it but stop and tell the operator.
 */
export const CONNECT_CODE_EXIT: Record<Code, ExitCode> = {
  [Code.Canceled]: EXIT.unavailable,
  [Code.Unknown]: EXIT.unclassified,
  [Code.InvalidArgument]: EXIT.usage,
  [Code.DeadlineExceeded]: EXIT.timeout,
  [Code.NotFound]: EXIT.not_found,
  [Code.AlreadyExists]: EXIT.unclassified,
  [Code.PermissionDenied]: EXIT.auth,
  [Code.ResourceExhausted]: EXIT.too_large,
  [Code.FailedPrecondition]: EXIT.usage,
  [Code.Aborted]: EXIT.unclassified,
  [Code.OutOfRange]: EXIT.usage,
  [Code.Unimplemented]: EXIT.unclassified,
  [Code.Internal]: EXIT.unclassified,
  [Code.Unavailable]: EXIT.unavailable,
  [Code.DataLoss]: EXIT.unclassified,
  [Code.Unauthenticated]: EXIT.auth,
};

export function exitForConnectCode(code: Code): ExitCode {
  return CONNECT_CODE_EXIT[code];
}
