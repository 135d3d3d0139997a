import { classify, type Classified } from "../argerror/index.js";
import type { LogFields, Logger } from "../model/logger.js";

/** An error as a log line shows it: its class and message, which no caller ever sees. */
export function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/**
 * Classifies a failure as every lane answers it, and logs what the server
 * keeps to itself, the same way on every lane: an unclassified failure at
 * error with its real text (the caller gets only "internal error"), an
 * unavailable at warn with its reason and cause class (never a value).
 * Everything else is the caller's request answered as designed; its
 * access-log line is all that is said about it.
 *
 * `call` names the failed call in the lane's own words ("request" on
 * Connect, "tool call" on MCP), and `fields` says which one.
 */
export function classifyAndLog(err: unknown, log: Logger, call: string, fields: LogFields): Classified {
  const c = classify(err);
  if (c.internal) log.error(`${call} failed`, { ...fields, error: errorText(err) });
  else if (c.warn) log.warn(`${call} unavailable`, { ...fields, ...c.warn });
  return c;
}
