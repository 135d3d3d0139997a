import { Option, type Command } from "commander";
import { CliFailure, cliLine, expecting, type OutputMode, parseDurationMs, parseUint, usageError } from "../cli-kit/index.js";
import { ArgError, argError, type ExitCode, type Hint } from "../argerror/index.js";
import { MAX_TIMER_HOURS } from "../model/index.js";

/**
 * Flags and plumbing shared by the operator verbs (`migrate …`,
 * `spine-review …`). These open the store directly, so there is no
 * --server and no token; what they share with the client verbs is the
 * output contract: one document on stdout, diagnostics on stderr.
 */

export const DEFAULT_SWEEP_TIMEOUT = "5m";

/**
 * A refused operator flag: the envelope naming the flag's field (its name
 * without the dashes, as `all-scopes` and `dry-run` are named), exit 2.
 * The detail names the flag and what it takes, never the value typed.
 */
export function flagRefusal(flag: string | readonly string[], hint: Hint, detail: string): CliFailure {
  const fields = (typeof flag === "string" ? [flag] : flag).map((f) => f.replace(/^--/, ""));
  return usageError(argError(fields, hint, detail).message);
}

/** `--output json|text`, defaulting to text on a terminal and json otherwise, exactly as the client verbs do. */
export function addOutputFlag(cmd: Command): Command {
  return cmd.addOption(
    new Option("--output <format>", "output format").choices(["json", "text"]).default(undefined, "text on a TTY, else json"),
  );
}

export function outputMode(value: OutputMode | undefined): OutputMode {
  return value ?? (process.stdout.isTTY ? "text" : "json");
}

/**
 * The sweep's wall-clock budget. Unlike a client verb's per-RPC deadline, 0
 * means "no budget" here: a large store may legitimately need hours.
 */
export function addSweepTimeoutFlag(cmd: Command, usage = "wall-clock budget for the write loop, e.g. 30s, 5m, 1h; 0 disables it"): Command {
  return cmd.addOption(new Option("--timeout <duration>", usage).default(DEFAULT_SWEEP_TIMEOUT));
}

/** Milliseconds; 0 means unbounded. Malformed or negative text is exit 2. */
export function parseSweepTimeout(text: string | undefined): number {
  const ms = parseDurationMs(text ?? DEFAULT_SWEEP_TIMEOUT);
  const plainZero = text !== undefined && /^\s*0\s*$/.test(text);
  if (plainZero) return 0;
  if (ms === undefined || ms < 0) throw flagRefusal("--timeout", "format", "--timeout must be a duration such as 30s, 5m or 1h, or 0 for no limit");
  if (ms > MAX_TIMER_HOURS * 3_600_000) throw flagRefusal("--timeout", "out_of_range", `--timeout must be at most ${MAX_TIMER_HOURS}h, or 0 for no limit`);
  return Math.ceil(ms);
}

/** Milliseconds, never 0: for a sweep that must not be left to run unbounded by accident (migrate-remap-owner). */
export function parsePositiveSweepTimeout(text: string | undefined): number {
  const ms = parseDurationMs(text ?? DEFAULT_SWEEP_TIMEOUT);
  if (ms === undefined || ms <= 0) throw flagRefusal("--timeout", ms === undefined && !/^\s*0\s*$/.test(text ?? "") ? "format" : "out_of_range", "--timeout must be a positive duration such as 30s, 5m or 1h");
  if (ms > MAX_TIMER_HOURS * 3_600_000) throw flagRefusal("--timeout", "out_of_range", `--timeout must be at most ${MAX_TIMER_HOURS}h`);
  return Math.ceil(ms);
}

export const DEFAULT_BATCH_SIZE = 256;

/** The most records one batch of a sweep may hold. */
export const MAX_BATCH_SIZE = 100_000;

/**
 * `migrate` and `migrate revert`: a pass rewrites payloads only (no
 * embedding), about 10 µs a record, so 2048 holds the write lock for some
 * 20-30 ms; a smaller batch commits the pages it shares with its neighbours
 * (the short_id index above all) again and again.
 */
export const SCHEMA_SWEEP_BATCH_SIZE = 2048;

/** `--batch-size <n>`: records written per transaction (one pass of the loop). */
export function addBatchSizeFlag(cmd: Command, dflt: number = DEFAULT_BATCH_SIZE): Command {
  return cmd.addOption(
    batchSizeOption(new Option("--batch-size <n>", "records written per transaction; each pass of the loop writes one batch"), dflt),
  );
}

/** The range batchSize() enforces, stated alike whether the value is not a number (letters) or out of range (0). */
const BATCH_SIZE_RANGE = `an integer from 1 to ${MAX_BATCH_SIZE}`;

/** A `--batch-size <n>` option with its parser, default and refusal text. */
export function batchSizeOption(option: Option, dflt: number = DEFAULT_BATCH_SIZE): Option {
  return expecting(option.argParser(parseUint).default(BigInt(dflt), String(dflt)), BATCH_SIZE_RANGE);
}

export function batchSize(value: bigint | undefined, dflt: number = DEFAULT_BATCH_SIZE): number {
  const n = value ?? BigInt(dflt);
  if (n < 1n || n > BigInt(MAX_BATCH_SIZE)) throw flagRefusal("--batch-size", "out_of_range", `--batch-size must be ${BATCH_SIZE_RANGE}`);
  return Number(n);
}

/** `--scope` | `--all-scopes`, exactly one. */
export function addScopeFlags(cmd: Command, more: { scope?: string; allScopes?: string } = {}): Command {
  return cmd
    .option("--scope <scope>", `work on this one scope${more.scope ?? ""}`)
    .option("--all-scopes", `work on every scope, every owner${more.allScopes ?? ""}`);
}

export const SCOPE_ALL_SCOPES_EXCLUSIVE = "scope and all-scopes cannot be combined; all-scopes already covers every scope";

/** Fired between two batches when --timeout has run out. */
export class SweepTimeoutError extends Error {
  override readonly name = "SweepTimeoutError";
}

/**
 * A wall-clock budget checked at the loop's safe points (after a batch has
 * committed), so running out never leaves a half-written batch behind.
 */
export class Deadline {
  private readonly at: number;
  constructor(
    readonly ms: number,
    readonly label: string,
    private readonly now: () => number = Date.now,
  ) {
    this.at = ms === 0 ? Number.POSITIVE_INFINITY : now() + ms;
  }

  expired(): boolean {
    return this.now() > this.at;
  }
}

/** An envelope raised by a shared check (a batch-shape rule, say) becomes a local usage failure. */
export function asUsage(err: unknown): unknown {
  return err instanceof ArgError ? usageError(err.message) : err;
}

/** A CLI message with a chosen status (an envelope stays the whole line). */
export function failure(exitCode: ExitCode, message: string): CliFailure {
  return new CliFailure(exitCode, cliLine(message));
}

/** `--apply` with `--dry-run`: the envelope the other flag pairs get, exit 2. */
export function checkApplyDryRun(o: { apply?: boolean; dryRun?: boolean }): void {
  if (o.apply && o.dryRun) {
    throw usageError(argError(["apply", "dry-run"], "mutually_exclusive", "apply and dry-run cannot be combined; without apply the run is a preview").message);
  }
}
