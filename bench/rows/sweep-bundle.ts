/**
 * sweep-run.ts and the sweep worker beside it, bundled with dist/'s options
 * into a directory inside the repository (so the bundle's external packages
 * resolve from its node_modules), and one run of it over a data directory.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { bundleOptions } from "../../scripts/build.mjs";
import type { MigrateReport, RevertReport } from "../../src/store/migrations/index.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export type Timed<T> = { result: T; ms: number; cpuMs: number };
export type Round = { up: Timed<MigrateReport>; down: Timed<RevertReport> };

/** Builds the bundle, hands fn a runner of it, and removes the bundle afterwards. */
export async function withSweepBundle<T>(fn: (sweep: (dataDir: string, order?: "revert-first") => Promise<Round>) => Promise<T>): Promise<T> {
  const out = mkdtempSync(join(ROOT, ".bench-sweeps-"));
  try {
    await build(bundleOptions({ "sweep-run": "bench/rows/sweep-run.ts", "sweep-worker": "src/store/embedded/sweep/sweep-worker.ts" }, out));
    return await fn(async (dataDir, order) => {
      const env = { ...process.env, ENGRAM_DATA_DIR: dataDir, ...(order ? { ENGRAM_BENCH_SWEEP_ORDER: order } : {}) };
      const { stdout } = await run(process.execPath, [join(out, "sweep-run.js")], { env, maxBuffer: 1 << 20 });
      return JSON.parse(stdout.trim().split("\n").pop()!) as Round;
    });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
