import type { Command } from "commander";
import { usageError } from "../cli-kit/index.js";
import { RULES, ruleError } from "../argerror/index.js";

/**
 * Flag checks that mirror request fields speak the envelope grammar, naming
 * the proto fields, so a wrapper parses a local rejection exactly as it
 * parses the server's. Each one is a declared rule: the core's own rules are
 * checked early here only where the CLI would otherwise send nothing the
 * server could judge first, and the one CLI-tier rule is the CLI's
 * deliberate strictness, documented as a lane difference. A core rule the
 * server checks after other fields (the scope rule comes after query and k)
 * is left to the server, so the same request gets the same first envelope
 * on every lane.
 */

/** For help text: the CLI-tier rule, in its one sentence. */
export const SCOPE_CROSS_SPINE_RULE = RULES["scope-cross-spine-mutually-exclusive"].sentence;

/**
 * `--scope` and `--cross-spine` for the reads that take both (search, list,
 * list-scheduled). The help repeats the CLI-tier rule's own sentence: this
 * lane refuses what Connect and MCP accept (they ignore the scope), and the
 * help is where an operator learns that before the refusal does.
 */
export function addRecallScopeFlags(cmd: Command): Command {
  return cmd
    .option("--scope <scope>", "the scope to read; required unless --cross-spine")
    .option("--cross-spine", `span every scope the caller may read instead of --scope (${SCOPE_CROSS_SPINE_RULE})`);
}

/**
 * The CLI-tier rule only: `--scope` with `--cross-spine` is refused before
 * dialing. Neither of them is the core's conditional rule, which the server
 * answers in its own order (a missing query or an out-of-range k first).
 */
export function checkScopePair(opts: { scope?: string; crossSpine?: boolean }): void {
  if (opts.crossSpine && opts.scope !== undefined) throw usageError(ruleError("scope-cross-spine-mutually-exclusive").message);
}

/** Any two of --offset, --cursor-mode, --page-token. Presence counts, not value. */
export function checkPagingTrio(opts: { offset?: bigint; cursorMode?: boolean; pageToken?: string }): void {
  const given = [opts.offset !== undefined, opts.cursorMode === true, opts.pageToken !== undefined].filter(Boolean);
  if (given.length > 1) throw usageError(ruleError("paging-trio-mutually-exclusive").message);
}
