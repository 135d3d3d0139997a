/**
 * `engram import` of an export of N records into an empty data directory,
 * as the CLI runs it (a child process, same embedder so nothing is
 * re-embedded), in records/s over its wall time, beside `engram export` of
 * the same records in the same run. What it measures is mostly the store's
 * writes: the SQLite driver shows here.
 *
 *   ENGRAM_BENCH_RECORDS  records (default 100000)
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { identityKey, LOCAL_IDENTITY } from "../../src/embed/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { META_EMBEDDER_IDENTITY } from "../../src/store/index.js";
import { clustered } from "../../test/helpers/synthetic-vectors.js";
import { syntheticRecord } from "../../test/helpers/synthetic-record.js";
import type { BenchRow, BenchSection } from "../bench-row.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const N = Number(process.env.ENGRAM_BENCH_RECORDS ?? 100_000);
const DIM = 512;

/** The CLI's environment: this process's, less engram's settings but the SQLite driver under test. */
function cliEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ENGRAM_") || k === "ENGRAM_SQLITE_DRIVER") env[k] = v;
  return { ...env, ENGRAM_DATA_DIR: dataDir, ENGRAM_PROGRESS: "never" };
}

async function cli(command: string, dataDir: string): Promise<number> {
  const t = performance.now();
  await run("/bin/sh", ["-c", `"${process.execPath}" bin/engram.js ${command}`], { cwd: ROOT, env: cliEnv(dataDir), maxBuffer: 1 << 20 });
  return (performance.now() - t) / 1000;
}

export const importRate: BenchSection = async () => {
  const work = mkdtempSync(join(tmpdir(), "engram-bench-import-"));
  try {
    const seed = join(work, "seed");
    const draw = clustered(99, DIM);
    const store = EmbeddedStore.open({ dataDir: seed, dim: DIM });
    for (let start = 0; start < N; start += 5000) {
      store.transaction(() => {
        for (let i = start; i < Math.min(N, start + 5000); i++) store.writeRecord(syntheticRecord(i, { content: `record ${i} about the billing database and its retries` }), draw());
      });
    }
    // The export carries the embedder the data was written with; stamp the local one, as a server would.
    await store.setMeta(META_EMBEDDER_IDENTITY, identityKey(LOCAL_IDENTITY));
    await store.close();
    const file = join(work, "export.jsonl");
    const exportS = await cli(`export --all-owners > "${file}"`, seed);
    const importS = await cli(`import "${file}"`, join(work, "copy"));
    return [
      {
        measure: `engram import of ${N} records into an empty data directory`,
        value: `${Math.round(N / importS)} records/s`,
        reference: `engram export of the same records ${Math.round(N / exportS)} records/s`,
        ratio: exportS / importS,
        goal: "(driver comparison)",
        met: true,
      },
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};
