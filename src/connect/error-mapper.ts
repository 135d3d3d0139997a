import { Code, ConnectError } from "@connectrpc/connect";
import { connectDetails } from "../argerror/index.js";
import type { Logger } from "../core/index.js";
import { classifyAndLog } from "../observe/index.js";

/**
 * Every handler failure passes through here. The classifier decides the
 * code, and src/observe logs what is kept from the caller, as on every lane.
 */
export function toConnectError(err: unknown, log: Logger, procedure: string): ConnectError {
  if (err instanceof ConnectError && err.code === Code.Unauthenticated) return err;
  const c = classifyAndLog(err, log, "request", { procedure });
  const details = c.argError ? connectDetails(c.argError) : [];
  // The envelope rides along as the cause (never sent) so the access log can name its hint.
  return new ConnectError(c.message, c.code, undefined, details, c.argError);
}
