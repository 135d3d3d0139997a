import type { Command } from "commander";
import { type OutputMode, progressFor, table, writeDocument } from "../cli-kit/index.js";
import { RULES } from "../argerror/index.js";
import type { PruneReport } from "../operator/index.js";
import { addOutputFlag, addSweepTimeoutFlag, outputMode, parseSweepTimeout, SweepTimeoutError } from "./common.js";
import { addOlderThanFlag, loopHooks, parseOlderThan, sweepTimedOut } from "./lifecycle.js";
import { SWEEP_CHECK, withServingStore } from "./store.js";

/**
 * `engram prune-expired`: deletes scheduled records whose not_after lapsed
 * at least --older-than ago, on the store the server would serve. Preview
 * unless --apply.
 */

type PruneFlags = { olderThan?: string; apply?: boolean; output?: OutputMode; timeout?: string };

export function pruneText(r: PruneReport): string {
  const head = r.dry_run
    ? r.found === 0
      ? `preview: no record's not_after is at or before ${r.cutoff}; nothing to prune`
      : `preview: ${r.found} record(s) whose not_after is at or before ${r.cutoff} would be deleted; nothing was written (run with --apply)`
    : `deleted ${r.deleted} of ${r.found} record(s) whose not_after is at or before ${r.cutoff}`;
  if (r.scopes.length === 0) return head;
  return `${head}\n\n${table(
    ["SCOPE", "FOUND", "DELETED"],
    r.scopes.map((s) => [s.scope, String(s.found), String(s.deleted)]),
  )}`;
}

async function runPrune(o: PruneFlags): Promise<void> {
  const olderThanS = parseOlderThan(o.olderThan) ?? 0;
  const output = outputMode(o.output);
  const timeoutMs = parseSweepTimeout(o.timeout);
  const apply = o.apply === true;
  const progress = progressFor(apply);
  const { pruneExpired } = await import("../operator/index.js");
  const report = await withServingStore(
    async ({ store }) => {
      const hooks = loopHooks("deleted", progress, timeoutMs);
      try {
        return await pruneExpired(store, { olderThanS, apply, now: Math.floor(Date.now() / 1000), onProgress: hooks.onProgress });
      } catch (err) {
        if (err instanceof SweepTimeoutError) {
          throw sweepTimedOut(`${hooks.done()} record(s) were deleted in committed batches, and stay deleted`, "engram prune-expired --apply");
        }
        throw err;
      } finally {
        hooks.reporter.finish();
      }
    },
    process.env,
    SWEEP_CHECK,
  );
  writeDocument(output, report, () => pruneText(report));
}

export function registerOperatorPrune(program: Command): void {
  const cmd = program
    .command("prune-expired")
    .summary("delete scheduled records whose not_after has lapsed, any owner (preview unless --apply)")
    .description(
      "Delete records whose not_after lapsed at least --older-than ago (default 0: any not_after in the past), on the store the server would " +
        "open: ENGRAM_DATA_DIR, or the Qdrant collection when ENGRAM_QDRANT_URL is set. Recall already hides them; this reclaims the space. " +
        "Archived records are left to `spine-review purge --class archived`; discoveries and rules are never deleted. " +
        `Without --apply it only counts: ${RULES["destructive-requires-apply"].sentence}.`,
    );
  addOlderThanFlag(cmd, "grace: only records whose not_after lapsed at least this long ago, e.g. 24h; 0 is any past not_after", "0").option(
    "--apply",
    "write: delete the records instead of previewing",
  );
  addOutputFlag(cmd);
  addSweepTimeoutFlag(cmd);
  cmd.action(async (o: PruneFlags) => runPrune(o));
}
