import { Code } from "@connectrpc/connect";
import type { Logger } from "../model/logger.js";
import { codeLabel, type RequestObserver } from "./request-outcome.js";

/**
 * Codes that mean the server failed the caller. Everything else, including
 * response_too_large (resource_exhausted: the caller asked for more than the
 * budget) and every validation rejection, is the caller's request being
 * answered as designed and logs at info.
 */
const SERVER_SIDE: ReadonlySet<Code> = new Set([Code.Internal, Code.Unknown, Code.DataLoss]);

/** One line per request on the engram logger, then the next observer (the metrics) if any. */
export function accessLog(log: Logger, next?: RequestObserver): RequestObserver {
  return (o) => {
    const fields: Record<string, unknown> = {
      lane: o.lane,
      procedure: o.procedure,
      code: codeLabel(o.code),
      duration_ms: Math.round(o.durationMs * 10) / 10,
      owner: o.owner ?? null,
    };
    if (o.hint !== undefined) fields.hint = o.hint;
    if (o.code !== "ok" && SERVER_SIDE.has(o.code)) log.error("request", fields);
    else if (o.code === Code.Unavailable) log.warn("request", fields);
    else log.info("request", fields);
    next?.(o);
  };
}
