import { Option, type Command } from "commander";
import { CliFailure, parseDurationMs, type ProgressMode, ProgressReporter, usageError } from "../cli-kit/index.js";
import { argError, EXIT, ruleError } from "../argerror/index.js";
import { Deadline, failure, SCOPE_ALL_SCOPES_EXCLUSIVE, SweepTimeoutError, flagRefusal } from "./common.js";

/**
 * What the lifecycle sweeps (`prune-expired`, `spine-review purge`,
 * `spine-review consolidate`) share: the --older-than window, the optional
 * scope choice, and the loop hooks that draw progress and enforce --timeout
 * between committed batches.
 */

/** `--older-than <duration>`: the window before a record qualifies; purge has no default of its own (each class has one). */
export function addOlderThanFlag(cmd: Command, description: string, dflt?: string): Command {
  const option = new Option("--older-than <duration>", description);
  return cmd.addOption(dflt === undefined ? option : option.default(dflt));
}

/**
 * The longest window, 1000 years: past any retention, and short enough that
 * now minus it stays a date the reports print in RFC 3339. It is checked up
 * front because past JavaScript's date range the cutoff cannot be computed,
 * and that would surface only once the store is open.
 */
export const MAX_OLDER_THAN_HOURS = 8_760_000;

/** Refuses a window past MAX_OLDER_THAN_HOURS, before the store is opened. */
export function checkOlderThanCap(ms: number): void {
  if (ms > MAX_OLDER_THAN_HOURS * 3_600_000) throw flagRefusal("--older-than", "out_of_range", `--older-than must be at most ${MAX_OLDER_THAN_HOURS}h (1000 years), or 0`);
}

/**
 * Whole seconds, rounded down; undefined when the flag was not given. `0`
 * (or any zero duration) is accepted; a negative, malformed or too long one is exit 2.
 */
export function parseOlderThan(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^\s*0\s*$/.test(text)) return 0;
  const ms = parseDurationMs(text);
  if (ms === undefined || ms < 0) throw flagRefusal("--older-than", "format", "--older-than must be a duration such as 90s, 30m or 2160h (90 days), or 0");
  checkOlderThanCap(ms);
  return Math.floor(ms / 1000);
}

/**
 * `--scope` or `--all-scopes` when either is optional: undefined scope means
 * every scope; `chosen` says whether one was named. An empty `--scope` names
 * no scope, so it is refused as `spine-review scan` refuses it rather than
 * taken for a choice.
 */
export function scopeChoice(o: { scope?: string; allScopes?: boolean }): { scope?: string; chosen: boolean } {
  if (o.allScopes && o.scope !== undefined) {
    throw usageError(argError(["scope", "all-scopes"], "mutually_exclusive", SCOPE_ALL_SCOPES_EXCLUSIVE).message);
  }
  // A blank scope names none (no write stores one), as export reads it.
  if (o.scope !== undefined && o.scope.trim() === "") throw usageError(ruleError("sweep-scope-or-all-scopes-required").message);
  if (o.allScopes) return { chosen: true };
  if (o.scope !== undefined) return { scope: o.scope, chosen: true };
  return { chosen: false };
}

/**
 * The loop's callback: draws `verb done/total` on stderr and stops the run
 * between batches once --timeout has run out (every committed batch stays);
 * after the last batch there is nothing left to stop.
 */
export function loopHooks(verb: string, mode: ProgressMode, timeoutMs: number) {
  const reporter = new ProgressReporter(mode, verb);
  const deadline = new Deadline(timeoutMs, verb);
  let done = 0;
  return {
    reporter,
    done: () => done,
    onProgress: (d: number, total: number) => {
      done = d;
      reporter.update(d, total);
      // A budget that runs out with the last batch committed stopped nothing: the run reports as done.
      if (d < total && deadline.expired()) throw new SweepTimeoutError(verb);
    },
  };
}

/** Exit 6 after --timeout ran out: what stays done, and what to run to go on (the value typed is not repeated). */
export function sweepTimedOut(what: string, rerun: string): CliFailure {
  return failure(EXIT.timeout, `--timeout ran out after ${what}; run \`${rerun}\` again to continue`);
}
