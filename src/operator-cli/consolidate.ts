import { Option, type Command } from "commander";
import { expecting, type OutputMode, parseUint, progressMode, table, usageError, writeDocument } from "../cli-kit/index.js";
import type { ConsolidateReport } from "../operator/index.js";
import { ruleError } from "../argerror/index.js";
import { addOutputFlag, addScopeFlags, addSweepTimeoutFlag, outputMode, parseSweepTimeout, SweepTimeoutError, flagRefusal } from "./common.js";
import { loopHooks, scopeChoice, sweepTimedOut } from "./lifecycle.js";
import { SWEEP_CHECK, withServingStore } from "./store.js";

/**
 * `engram spine-review consolidate`: ranked near-duplicate pairs among the
 * records recall can see, from their stored vectors (src/operator/consolidate.ts).
 * It never writes; the progress line counts the records compared.
 */

type ConsolidateFlags = { scope?: string; allScopes?: boolean; minScore?: string; topK?: bigint; output?: OutputMode; timeout?: string };

const TOP_K_DEFAULT = 5;
const TOP_K_MAX = 100;

export function consolidateText(r: ConsolidateReport): string {
  const foot = `records: ${r.records}  pairs: ${r.pairs}`;
  if (r.results.length === 0) return `no near-duplicate pairs\n\n${foot}`;
  return `${table(
    ["SCORE", "A", "A_SCOPE", "B", "B_SCOPE"],
    r.results.map((p) => [p.score.toFixed(4), p.a_short_id || p.a_id, p.a_scope, p.b_short_id || p.b_id, p.b_scope]),
  )}\n\n${foot}`;
}

/** The range topKOf enforces, stated alike whether the value is not a number (letters) or out of range (0). */
const TOP_K_RANGE = `an integer from 1 to ${TOP_K_MAX}`;

function topKOf(value: bigint | undefined): number {
  const n = value ?? BigInt(TOP_K_DEFAULT);
  if (n < 1n || n > BigInt(TOP_K_MAX)) throw flagRefusal("--top-k", "out_of_range", `--top-k must be ${TOP_K_RANGE}`);
  return Number(n);
}

function minScoreOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  // A decimal, exponent allowed (1e-1); never hex, Infinity or an empty string, which Number() would take.
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : NaN;
  if (!Number.isFinite(n) || n < -1 || n > 1) throw flagRefusal("--min-score", Number.isFinite(n) ? "out_of_range" : "format", "--min-score must be a number from -1 to 1 (a cosine)");
  return n;
}

async function runConsolidate(o: ConsolidateFlags): Promise<void> {
  const { scope, chosen } = scopeChoice(o);
  if (!chosen) throw usageError(ruleError("sweep-scope-or-all-scopes-required").message);
  const topK = topKOf(o.topK);
  const minScore = minScoreOf(o.minScore);
  const output = outputMode(o.output);
  const timeoutMs = parseSweepTimeout(o.timeout);
  const progress = progressMode();
  const { consolidate } = await import("../operator/index.js");
  const report = await withServingStore(async ({ store }) => {
    const hooks = loopHooks("compared", progress, timeoutMs);
    try {
      return await consolidate(store, { scope, topK, minScore, now: Math.floor(Date.now() / 1000), onProgress: hooks.onProgress });
    } catch (err) {
      if (err instanceof SweepTimeoutError) throw sweepTimedOut(`comparing ${hooks.done()} record(s); nothing was written`, "engram spine-review consolidate");
      throw err;
    } finally {
      hooks.reporter.finish();
    }
    // It reads every record anyway: the file is checked on another thread meanwhile, and a damaged one still refuses the run.
  }, process.env, SWEEP_CHECK);
  writeDocument(output, report, () => consolidateText(report));
}

export function registerSpineReviewConsolidate(group: Command): void {
  const cmd = group
    .command("consolidate")
    .summary("rank near-duplicate record pairs by the cosine of their stored vectors (read-only)")
    .description(
      "Find near-duplicates among the records recall can see: each record's --top-k nearest by its stored vector, through the store's " +
        "vector index (approximate on a large store, never every pair), each pair once, best first, with both records' scopes. " +
        "Nothing is embedded and nothing is written; merge or archive what it finds yourself. One of --scope and --all-scopes is required.",
    );
  addScopeFlags(cmd, { scope: " (this or --all-scopes is required)", allScopes: "; pairs may cross scopes" })
    .addOption(new Option("--min-score <cosine>", "only pairs scoring at least this, from -1 to 1").default(undefined, "no filter"))
    .addOption(
      expecting(new Option("--top-k <n>", `neighbours asked for per record, 1 to ${TOP_K_MAX}`).argParser(parseUint).default(BigInt(TOP_K_DEFAULT), String(TOP_K_DEFAULT)), TOP_K_RANGE),
    );
  addOutputFlag(cmd);
  addSweepTimeoutFlag(cmd, "wall-clock budget for the run, e.g. 30s, 5m, 1h; 0 disables it");
  cmd.action(async (o: ConsolidateFlags) => runConsolidate(o));
}
