import { Option, type Command } from "commander";
import { EXIT, RULES } from "../argerror/index.js";
import type { ReindexProgress, ReindexReport } from "../operator/index.js";
import type { OutputMode } from "./client-flags.js";
import { usageError } from "./failure.js";
import { addBatchSizeFlag, addOutputFlag, batchSize, Deadline, failure, outputMode, parseSweepTimeout, SweepTimeoutError, writeDocument } from "./operator-common.js";
import { ProgressReporter, progressMode } from "./operator-progress.js";
import { withOperatorStore } from "./operator-store.js";
import { table } from "./text.js";
import { dataDirOf } from "../data-dir.js";

/**
 * `engram reindex`: re-embed every record with the embedder the environment
 * now configures, so a server refused with "run `engram reindex`" starts
 * again. Previews unless --apply; resumable after any interruption.
 */

export const DEFAULT_REINDEX_TIMEOUT = "30m";

type ReindexFlags = { apply?: boolean; dryRun?: boolean; output?: OutputMode; timeout?: string; batchSize?: bigint };

export function reindexText(r: ReindexReport): string {
  const head = r.dry_run
    ? r.pending === 0
      ? `preview: every record is already embedded by ${r.to_identity}; nothing to reindex`
      : `preview: ${r.pending} of ${r.records} record(s) would be re-embedded with ${r.to_identity}; nothing was written (run \`engram reindex --apply\`)`
    : `re-embedded ${r.reembedded} record(s) with ${r.to_identity}; the server now starts on it`;
  const rows: [string, string][] = [
    ["dry_run", String(r.dry_run)],
    ["from_identity", r.from_identity],
    ["to_identity", r.to_identity],
    ["records", String(r.records)],
    ["pending", String(r.pending)],
    ["reembedded", String(r.reembedded)],
    ["already_done", String(r.already_done)],
  ];
  return [head, "", table(["FIELD", "VALUE"], rows)].join("\n");
}

async function runReindex(o: ReindexFlags): Promise<void> {
  if (o.apply && o.dryRun) throw usageError("--apply and --dry-run cannot be combined");
  const output = outputMode(o.output);
  const timeoutText = o.timeout ?? DEFAULT_REINDEX_TIMEOUT;
  const timeoutMs = parseSweepTimeout(timeoutText);
  const batch = batchSize(o.batchSize);
  const apply = o.apply === true;
  const progress = apply ? progressMode() : "off";
  const { reindex } = await import("../operator/reindex.js");
  const report = await withOperatorStore(async ({ store, deps }) => {
    const reporter = new ProgressReporter(progress, "reembedded");
    const deadline = new Deadline(timeoutMs, "reembedded");
    let last: ReindexProgress = { done: 0, total: 0 };
    try {
      return await reindex(store, deps.embedder, {
        apply,
        batch,
        dataDir: dataDirOf(process.env),
        onProgress: (p) => {
          last = p;
          reporter.update(p.done, p.total);
        },
        between: () => {
          if (deadline.expired()) throw new SweepTimeoutError("reembedded");
        },
      });
    } catch (err) {
      if (err instanceof SweepTimeoutError) {
        throw failure(
          EXIT.timeout,
          `--timeout ${timeoutText} ran out; the ${last.done} record(s) re-embedded in committed batches stay done; run \`engram reindex --apply\` again to continue`,
        );
      }
      if (err instanceof Error && err.name === "EmbedderError") throw failure(EXIT.unavailable, err.message);
      throw err;
    } finally {
      reporter.finish();
      // A worker-backed embedder holds threads open; let the process end.
      await (deps.embedder as { close?: () => Promise<void> | void }).close?.();
    }
  });
  writeDocument(output, report, () => reindexText(report));
}

export function registerOperatorReindex(program: Command): void {
  const cmd = program
    .command("reindex")
    .summary("re-embed every record with the configured embedder (preview unless --apply)")
    .description(
      "Re-embed every record on the store under ENGRAM_DATA_DIR with the embedder the environment configures now, and record " +
        `its identity, so the server starts on it. Without --apply it only counts what would change: ${RULES["destructive-requires-apply"].sentence}. ` +
        "An interrupted run leaves the store refused by both embedders; run it again to finish.",
    )
    .option("--apply", "write: re-embed instead of previewing")
    .option("--dry-run", "preview explicitly (the default); cannot be combined with --apply");
  addOutputFlag(cmd);
  cmd.addOption(
    new Option("--timeout <duration>", "wall-clock budget for the re-embedding loop, e.g. 30s, 5m, 1h; 0 disables it").default(DEFAULT_REINDEX_TIMEOUT),
  );
  addBatchSizeFlag(cmd);
  cmd.action(async (o: ReindexFlags) => runReindex(o));
}
