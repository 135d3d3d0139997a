/**
 * migrate --apply and migrate revert --apply, records per second, over
 * ENGRAM_BENCH_RECORDS (default 100,000) records written by a v0 binary.
 *
 * The records are the migration tests' synthetic ones (no short id, no
 * schema_version key's worth of steps applied), each with a 512-d vector,
 * the dimension the CLI opens the store with for the default local
 * embedder. The sweeps themselves run in a child process from a bundle
 * built here with dist/'s options (see sweep-run.ts), so what is timed is
 * the code the CLI ships, worker thread included; the bench's own tsx
 * would make that worker boot the TypeScript toolchain first, which the
 * shipped CLI never does.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { bundleOptions } from "../../scripts/build.mjs";
import { EmbeddedStore } from "../../src/store/embedded-store.js";
import type { MigrateReport, RevertReport } from "../../src/store/migrations/index.js";
import { CURRENT_SCHEMA_VERSION } from "../../src/store/schema-version.js";
import { syntheticRecord } from "../../test/helpers/synthetic-record.js";
import type { BenchRow, BenchSection } from "../bench-row.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GOAL = 50_000;
const DIM = 512;

async function seedV0(dir: string, n: number): Promise<void> {
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  const vector = new Float32Array(DIM);
  for (let d = 0; d < DIM; d++) vector[d] = Math.sin(d + 1) / Math.sqrt(DIM / 2);
  const batch = 5000;
  for (let start = 0; start < n; start += batch) {
    store.transaction(() => {
      for (let i = start; i < Math.min(n, start + batch); i++) store.writeRecord(syntheticRecord(i), vector, 0);
    });
  }
  // Closed before the sweeps' process opens the file, so its close is the last and checkpoints everything.
  await store.close();
}

type Timed<T> = { result: T; ms: number; cpuMs: number };

/** Bundles sweep-run.ts (and the sweep worker beside it) with dist/'s options, runs it by node over `dir`, and reads its line. */
async function runCompiled(dir: string): Promise<{ up: Timed<MigrateReport>; down: Timed<RevertReport> }> {
  // Inside the repository, so the bundle's external packages resolve from its node_modules.
  const out = mkdtempSync(join(ROOT, ".bench-sweeps-"));
  try {
    await build(bundleOptions({ "sweep-run": "bench/rows/sweep-run.ts", "sweep-worker": "src/store/sweep-worker.ts" }, out));
    const { stdout } = await run(process.execPath, [join(out, "sweep-run.js")], { env: { ...process.env, ENGRAM_DATA_DIR: dir }, maxBuffer: 1 << 20 });
    return JSON.parse(stdout.trim().split("\n").pop()!) as { up: Timed<MigrateReport>; down: Timed<RevertReport> };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function row(measure: string, count: number, ms: number, cpuMs: number): BenchRow {
  const rate = (count * 1000) / ms;
  return {
    measure,
    value: `${Math.round(rate).toLocaleString("en-US")} records/s (${count.toLocaleString("en-US")} in ${(ms / 1000).toFixed(2)} s; ${(cpuMs / 1000).toFixed(2)} s CPU)`,
    reference: "",
    goal: `>= ${GOAL.toLocaleString("en-US")} records/s`,
    met: rate >= GOAL,
  };
}

export const operatorSweeps: BenchSection = async () => {
  const n = Number(process.env.ENGRAM_BENCH_RECORDS ?? 100_000);
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-sweeps-"));
  try {
    await seedV0(dir, n);
    const { up, down } = await runCompiled(dir);
    if (up.result.migrated !== n || up.result.backlog !== 0) throw new Error(`migrate --apply did not converge: ${JSON.stringify(up.result)}`);
    if (down.result.reverted !== n || !down.result.applied) throw new Error(`migrate revert --apply did not converge: ${JSON.stringify(down.result)}`);

    return [
      row(`migrate --apply, v0 -> v${CURRENT_SCHEMA_VERSION}, ${n.toLocaleString("en-US")} records`, up.result.migrated, up.ms, up.cpuMs),
      row(`migrate revert --to 1 --apply, ${n.toLocaleString("en-US")} records`, down.result.reverted, down.ms, down.cpuMs),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
