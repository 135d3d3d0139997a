/**
 * The operator verbs' rates at one size, each as the CLI runs it:
 *
 *  - `engram export --all-owners` of the grown store to a file, and
 *    `engram import` of that file into an empty data directory (same
 *    embedder, so nothing is re-embedded), each the built CLI in a child
 *    process, records/s over its wall time (process start included; the
 *    children's CPU time beside it), progress lines on as at a terminal
 *    (the import counts the file's lines first for its total);
 *  - on the imported copy, `migrate revert --to 1 --apply` and then
 *    `migrate --apply` back up, in the bundled sweep runner (sweep-bundle.ts),
 *    each judged against a plain SQLite rewrite of every row's payload on
 *    the same copy right after (plain-rewrite.ts).
 *
 * The copy and the export file are removed before this returns.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { plainRewrite } from "../rows/plain-rewrite.js";
import type { Round } from "../rows/sweep-bundle.js";
import { childCpuSeconds } from "./child-cpu.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export type Rate = { records: number; s: number; cpuS: number };
export type OperatorFigures = { exportRate: Rate; importRate: Rate; revert: Rate; migrate: Rate; plain: Rate; exportBytes: number };

function cleanEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
  return { ...env, ENGRAM_DATA_DIR: dataDir, ENGRAM_PROGRESS: "always" };
}

async function cli(args: string[], dataDir: string, records: number): Promise<Rate> {
  const cpu = childCpuSeconds();
  const t = performance.now();
  await run("/bin/sh", ["-c", `"${process.execPath}" bin/engram.js ${args.join(" ")}`], { cwd: ROOT, env: cleanEnv(dataDir), maxBuffer: 1 << 20 });
  return { records, s: (performance.now() - t) / 1000, cpuS: childCpuSeconds() - cpu };
}

export async function operatorRates(
  dir: string,
  n: number,
  sweep: (dataDir: string, order?: "revert-first") => Promise<Round>,
): Promise<OperatorFigures> {
  const work = mkdtempSync(join(tmpdir(), "engram-growth-ops-"));
  const file = join(work, "export.jsonl");
  const copy = join(work, "imported");
  try {
    const exportRate = await cli(["export", "--all-owners", ">", `"${file}"`], dir, n);
    const exportBytes = statSync(file).size;
    const importRate = await cli(["import", `"${file}"`], copy, n);
    rmSync(file, { force: true });
    const round = await sweep(copy, "revert-first");
    if (round.down.result.reverted !== n) throw new Error(`migrate revert reverted ${round.down.result.reverted} of ${n} records`);
    if (round.up.result.migrated !== n || round.up.result.backlog !== 0) throw new Error(`migrate --apply did not converge: ${JSON.stringify(round.up.result)}`);
    const plain = plainRewrite(copy);
    if (plain.rows !== n) throw new Error(`the plain rewrite changed ${plain.rows} of ${n} rows`);
    return {
      exportRate,
      importRate,
      exportBytes,
      revert: { records: n, s: round.down.ms / 1000, cpuS: round.down.cpuMs / 1000 },
      migrate: { records: n, s: round.up.ms / 1000, cpuS: round.up.cpuMs / 1000 },
      plain: { records: n, s: plain.ms / 1000, cpuS: plain.cpuMs / 1000 },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
