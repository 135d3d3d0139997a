import type { Command } from "commander";
import type { OutputMode } from "../cli-kit/index.js";
import { RULES } from "../argerror/index.js";
import { addBatchSizeFlag, addOutputFlag, addSweepTimeoutFlag, checkApplyDryRun } from "./common.js";
import { runMigrate } from "./migrate.js";

/**
 * `engram backfill-short-ids`: the original CLI's name for the v0 → v1
 * sweep (mint a short id where a record has none), kept so scripts written
 * for it run unchanged. It is `engram migrate` stopped at version 1, with the
 * same report, progress lines and exit statuses; older scripts pass
 * `--dry-run`, which is the default anyway.
 */
export const SHORT_ID_VERSION = 1;

type BackfillFlags = { apply?: boolean; dryRun?: boolean; snapshot?: boolean; output?: OutputMode; timeout?: string; batchSize?: bigint };

export function registerOperatorBackfill(program: Command): void {
  const cmd = program
    .command("backfill-short-ids")
    .summary("give every record a short id: the v0 to v1 migration (preview unless --apply)")
    .description(
      `Run the v0 to v1 schema migration, which mints a short id for every record that lacks one, on the store under ENGRAM_DATA_DIR (or the Qdrant collection when ENGRAM_QDRANT_URL is set). ` +
        `The same sweep as \`engram migrate\`, stopped at version ${SHORT_ID_VERSION}. Without --apply it only counts: ${RULES["destructive-requires-apply"].sentence}.`,
    )
    .option("--apply", "write: run the convergence loop instead of previewing")
    .option("--dry-run", "preview explicitly (the default); cannot be combined with --apply")
    .option("--no-snapshot", "Qdrant: do not make a collection snapshot before --apply writes (the embedded store makes none either way)");
  addOutputFlag(cmd);
  addSweepTimeoutFlag(cmd);
  addBatchSizeFlag(cmd);
  cmd.action(async (o: BackfillFlags) => {
    checkApplyDryRun(o);
    await runMigrate(o, { target: SHORT_ID_VERSION, rerun: "engram backfill-short-ids --apply" });
  });
}
