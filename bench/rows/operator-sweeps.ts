/**
 * migrate --apply and migrate revert --apply, records per second, over
 * ENGRAM_BENCH_RECORDS (default 100,000) records written by a v0 binary.
 *
 * The records are the migration tests' synthetic ones (no short id, no
 * schema_version key's worth of steps applied), each with a 512-d vector,
 * the dimension the CLI opens the store with for the default local
 * embedder, since the vector shares the row (and so the page) every sweep
 * rewrites. Each sweep runs exactly as the CLI verb does, minus the process:
 * withOperatorStore opens the store, the runner sweeps it with the CLI's
 * default batch size, and the store closes (its final WAL checkpoint
 * included in the time). The file's integrity check runs alongside the
 * sweep, as the verbs run it, and is part of the time as well.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SCHEMA_SWEEP_BATCH_SIZE } from "../../src/cli/operator-common.js";
import { SWEEP_CHECK, withOperatorStore } from "../../src/cli/operator-store.js";
import { EmbeddedStore } from "../../src/store/embedded-store.js";
import { migrate, revert } from "../../src/store/migrations/index.js";
import { CURRENT_SCHEMA_VERSION } from "../../src/store/schema-version.js";
import { syntheticRecord } from "../../test/helpers/synthetic-record.js";
import type { BenchRow, BenchSection } from "../bench-row.js";

const GOAL = 50_000;
const DIM = 512;

function seedV0(dir: string, n: number): void {
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  const vector = new Float32Array(DIM);
  for (let d = 0; d < DIM; d++) vector[d] = Math.sin(d + 1) / Math.sqrt(DIM / 2);
  const batch = 5000;
  for (let start = 0; start < n; start += batch) {
    store.transaction(() => {
      for (let i = start; i < Math.min(n, start + batch); i++) store.writeRecord(syntheticRecord(i), vector, 0);
    });
  }
  void store.close();
}

/** Wall time, and this process's CPU time: on a shared machine the gap between the two is other people's work. */
async function timed<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const result = await fn();
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { result, ms, cpuMs: (used.user + used.system) / 1000 };
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
  const env = { ENGRAM_DATA_DIR: dir };
  try {
    seedV0(dir, n);
    // Loads the operator modules once, so the timed runs measure the sweep, not the imports.
    await withOperatorStore(() => undefined, env);

    const up = await timed(() =>
      withOperatorStore(({ store }) => migrate(store, { target: CURRENT_SCHEMA_VERSION, apply: true, batch: SCHEMA_SWEEP_BATCH_SIZE }), env, SWEEP_CHECK),
    );
    if (up.result.migrated !== n || up.result.backlog !== 0) throw new Error(`migrate --apply did not converge: ${JSON.stringify(up.result)}`);

    const down = await timed(() => withOperatorStore(({ store }) => revert(store, { to: 1, apply: true, batch: SCHEMA_SWEEP_BATCH_SIZE }), env, SWEEP_CHECK));
    if (down.result.reverted !== n || !down.result.applied) throw new Error(`migrate revert --apply did not converge: ${JSON.stringify(down.result)}`);

    return [
      row(`migrate --apply, v0 -> v${CURRENT_SCHEMA_VERSION}, ${n.toLocaleString("en-US")} records`, up.result.migrated, up.ms, up.cpuMs),
      row(`migrate revert --to 1 --apply, ${n.toLocaleString("en-US")} records`, down.result.reverted, down.ms, down.cpuMs),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
