import { Code, ConnectError } from "@connectrpc/connect";
import { classify, connectDetails } from "../argerror/index.js";
import type { Logger } from "../core/index.js";

/**
 * Every handler failure passes through here. The classifier decides the
 * code; an unclassified error is logged server-side and sent only as
 * "internal error". A response over the budget is the caller's request, not
 * a server fault: its access-log line (info, hint=response_too_large) is all
 * that is said about it.
 */
export function toConnectError(err: unknown, log: Logger, procedure: string): ConnectError {
  if (err instanceof ConnectError && err.code === Code.Unauthenticated) return err;
  const c = classify(err);
  if (c.internal) {
    log.error("request failed", { procedure, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  } else if (c.warn) {
    log.warn("request unavailable", { procedure, ...c.warn });
  }
  const details = c.argError ? connectDetails(c.argError) : [];
  // The envelope rides along as the cause (never sent) so the access log can name its hint.
  return new ConnectError(c.message, c.code, undefined, details, c.argError);
}
