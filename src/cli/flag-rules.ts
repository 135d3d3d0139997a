import { argError, ruleError } from "../argerror/index.js";
import { usageError } from "./failure.js";

/**
 * Flag checks that mirror request fields speak the envelope grammar, naming
 * the proto fields, so a wrapper parses a local rejection the same way as a
 * server one (after the `engram: ` prefix that marks it as local).
 */

export const SCOPE_CROSS_SPINE_EXCLUSIVE =
  "scope and cross_spine cannot be combined; cross_spine already spans every scope the caller may read";

export function checkScopePair(opts: { scope?: string; crossSpine?: boolean }): void {
  if (opts.crossSpine && opts.scope !== undefined) {
    throw usageError(argError(["scope", "cross_spine"], "mutually_exclusive", SCOPE_CROSS_SPINE_EXCLUSIVE).message);
  }
  if (!opts.crossSpine && (opts.scope === undefined || opts.scope === "")) {
    throw usageError(ruleError("scope-required-unless-cross-spine").message);
  }
}

/** Any two of --offset, --cursor-mode, --page-token. Presence counts, not value. */
export function checkPagingTrio(opts: { offset?: bigint; cursorMode?: boolean; pageToken?: string }): void {
  const given = [opts.offset !== undefined, opts.cursorMode === true, opts.pageToken !== undefined].filter(Boolean);
  if (given.length > 1) throw usageError(ruleError("paging-trio-mutually-exclusive").message);
}

