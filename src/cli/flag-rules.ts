import { RULES, ruleError } from "../argerror/index.js";
import { usageError } from "./failure.js";

/**
 * Flag checks that mirror request fields speak the envelope grammar, naming
 * the proto fields, so a wrapper parses a local rejection exactly as it
 * parses the server's. Each one is a declared rule: the core's own rules are
 * checked early here only to save a round trip (the server would answer the
 * same envelope), and the one CLI-tier rule is the CLI's deliberate
 * strictness, documented as a lane difference.
 */

/** For help text: the CLI-tier rule, in its one sentence. */
export const SCOPE_CROSS_SPINE_RULE = RULES["scope-cross-spine-mutually-exclusive"].sentence;

export function checkScopePair(opts: { scope?: string; crossSpine?: boolean }): void {
  if (opts.crossSpine && opts.scope !== undefined) throw usageError(ruleError("scope-cross-spine-mutually-exclusive").message);
  if (!opts.crossSpine && (opts.scope === undefined || opts.scope === "")) {
    throw usageError(ruleError("scope-required-unless-cross-spine").message);
  }
}

/** Any two of --offset, --cursor-mode, --page-token. Presence counts, not value. */
export function checkPagingTrio(opts: { offset?: bigint; cursorMode?: boolean; pageToken?: string }): void {
  const given = [opts.offset !== undefined, opts.cursorMode === true, opts.pageToken !== undefined].filter(Boolean);
  if (given.length > 1) throw usageError(ruleError("paging-trio-mutually-exclusive").message);
}
