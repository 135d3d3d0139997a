import { Option, type Command } from "commander";
import { type OutputMode, parseDurationMs, parseUint, progressFor, ProgressReporter, table, usageError, writeDocument } from "../cli-kit/index.js";
import { EXIT } from "../argerror/index.js";
import type { SummarizeReport } from "../operator/summarize-missing.js";
import { addOutputFlag, addScopeFlags, Deadline, failure, outputMode, parseSweepTimeout, flagRefusal } from "./common.js";
import { checkOlderThanCap } from "./lifecycle.js";
import { sweepScope } from "./spine-review.js";
import { withServingStore } from "./store.js";

/**
 * `engram summarize-missing`: the backstop of the on-write summary queue.
 * It is the one operator verb that sends record content off the machine
 * (to the chat-completions endpoint the summary settings name), so without
 * ENGRAM_SUMMARY_MODEL it refuses before opening anything, and --dry-run
 * sends nothing.
 */

type SummarizeFlags = { scope?: string; allScopes?: boolean; olderThan?: string; limit?: bigint; dryRun?: boolean; output?: OutputMode; timeout?: string };

const DEFAULT_TIMEOUT = "30m";
const MAX_LIMIT = 1_000_000n;

export const NO_SUMMARY_MODEL =
  "summarize-missing needs a summary model: set ENGRAM_SUMMARY_MODEL to the chat model's name and ENGRAM_OPENAI_CHAT_BASE_URL (or ENGRAM_OPENAI_BASE_URL) to its OpenAI-compatible endpoint; nothing was read or sent";

/** Milliseconds; 0 (the default) means any age. */
function olderThanMs(text: string | undefined): number {
  if (text === undefined || /^\s*0\s*$/.test(text)) return 0;
  const ms = parseDurationMs(text);
  if (ms === undefined || ms < 0) throw flagRefusal("--older-than", "format", "--older-than must be a duration such as 10m, 1h or 24h, or 0");
  checkOlderThanCap(ms);
  return Math.ceil(ms);
}

export function summarizeText(r: SummarizeReport): string {
  const head = r.dry_run
    ? `preview: ${r.missing} record(s) have no summary and would be sent to ${r.model}; nothing was sent or written`
    : `summarized ${r.summarized} of ${r.missing} record(s) with ${r.model}` +
      (r.skipped > 0 ? `; ${r.skipped} left alone (summarized, changed or deleted meanwhile)` : "") +
      (r.failed > 0 ? `; ${r.failed} failed and stay unsummarized (run again to retry)` : "");
  const lines = [head + (r.limited ? "; --limit stopped the sweep before the last one" : "")];
  if (r.records.length > 0) {
    lines.push("", table(["ID", "SCOPE", "OUTCOME"], r.records.map((x) => [x.short_id || x.id, x.scope, x.outcome + (x.error ? `: ${x.error}` : "")])));
  }
  return lines.join("\n");
}

async function runSummarize(o: SummarizeFlags): Promise<void> {
  const scope = sweepScope(o);
  const output = outputMode(o.output);
  const ms = olderThanMs(o.olderThan);
  const limit = o.limit ?? 0n;
  if (limit > MAX_LIMIT) throw flagRefusal("--limit", "out_of_range", `--limit must be at most ${MAX_LIMIT}, or 0 for no cap`);
  const timeoutMs = parseSweepTimeout(o.timeout ?? DEFAULT_TIMEOUT);
  const [{ summaryConfigFromEnv }, { summarizeMissing }] = await Promise.all([import("../embed/index.js"), import("../operator/summarize-missing.js")]);
  let config: ReturnType<typeof summaryConfigFromEnv>;
  try {
    config = summaryConfigFromEnv(process.env);
  } catch (err) {
    throw usageError(err instanceof Error ? err.message : String(err));
  }
  if (config === undefined) throw usageError(NO_SUMMARY_MODEL);
  const summarizer = config.summarizer;
  const dryRun = o.dryRun === true;
  const reporter = new ProgressReporter(progressFor(!dryRun), "processed");
  const deadline = new Deadline(timeoutMs, "processed");
  const report = await withServingStore(async ({ deps }) => {
    try {
      return await summarizeMissing(deps, summarizer, {
        scope,
        olderThanMs: ms,
        limit: Number(limit),
        dryRun,
        workers: config.workers,
        onProgress: (p) => reporter.update(p.done, p.total),
        stop: () => deadline.expired(),
      });
    } finally {
      reporter.finish();
    }
  });
  writeDocument(output, report, () => summarizeText(report));
  if (deadline.expired() && !dryRun && report.summarized + report.skipped + report.failed < report.missing) {
    throw failure(EXIT.timeout, `--timeout ran out after ${report.summarized} summary(ies); they stay written; run \`engram summarize-missing\` again to continue`);
  }
  // Every summary asked for failed: the summarizer is the problem, as an unreachable store would be.
  if (report.failed > 0 && report.summarized === 0 && report.skipped === 0) {
    throw failure(EXIT.unavailable, `every summary failed (${report.records.find((r) => r.error)?.error ?? "summarizer error"}); nothing was written`);
  }
}

export function registerOperatorSummarize(program: Command): void {
  const cmd = program
    .command("summarize-missing")
    .summary("write an auto summary for every live or scheduled record that has none (sends content to the summary model)")
    .description(
      "Find the live and scheduled records with no summary (never archived, superseded or lapsed ones, nor rules or discoveries) in --scope or --all-scopes, on the store the server would serve, " +
        "and summarize each with the chat-completions model ENGRAM_SUMMARY_MODEL names at ENGRAM_OPENAI_CHAT_BASE_URL (default: ENGRAM_OPENAI_BASE_URL): " +
        "each record's content is sent there, and nothing else of it. A summary lands only on a record still unsummarized and unchanged " +
        "(summary_source=auto, summary_model, summary_egress_at). Without ENGRAM_SUMMARY_MODEL it refuses (exit 2) and sends nothing; " +
        "--dry-run lists the records and sends nothing. See docs/operations.md, Summaries.",
    );
  addScopeFlags(cmd);
  cmd
    .addOption(new Option("--older-than <duration>", "only records created at least this long ago, e.g. 10m or 24h; 0 is any age").default("0"))
    .addOption(new Option("--limit <n>", "summarize at most n records; 0 means no cap").argParser(parseUint).default(0n, "0"))
    .option("--dry-run", "list the records that would be summarized; send and write nothing");
  addOutputFlag(cmd);
  cmd.addOption(new Option("--timeout <duration>", "wall-clock budget, e.g. 30m or 2h; summaries written before it ran out stay; 0 disables it").default(DEFAULT_TIMEOUT));
  cmd.action(async (o: SummarizeFlags) => runSummarize(o));
}
