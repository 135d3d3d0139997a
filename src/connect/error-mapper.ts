import { Code, ConnectError } from "@connectrpc/connect";
import { classify, connectDetails } from "../argerror/index.js";
import type { Logger } from "../core/index.js";

/**
 * Every handler failure passes through here. The classifier decides the
 * code; an unclassified error is logged server-side and sent only as
 * "internal error".
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
  return new ConnectError(c.message, c.code, undefined, details);
}
