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
 *
 * A sweep is one sample of a wide spread on a shared 2-core machine (the
 * same run's CPU time alone moved by a third between runs), so each verb is
 * timed ENGRAM_BENCH_SWEEP_ROUNDS times (default 3), every round on a fresh
 * copy of the v0 file in a process of its own, and the row gives the median
 * round with every round's rate beside it. Each copy is flushed to disk
 * before its round: an operator's file sits on disk when they migrate it,
 * and a fresh copy's half a gigabyte of dirty pages would otherwise be written back
 * while the sweep runs, on the same two cores.
 *
 * An absolute rate passes on a fast host and fails on a slow one, so each
 * round is judged against a physical reference measured on the same copy
 * right after its sweeps: one plain SQLite transaction rewriting every
 * row's payload through a prepared statement (plain-rewrite.ts). The goal is
 * a sweep's time at most twice that reference's.
 */
import { closeSync, cpSync, fsyncSync, mkdtempSync, openSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { CURRENT_SCHEMA_VERSION } from "../../src/store/schema-version.js";
import { syntheticRecord } from "../../test/helpers/synthetic-record.js";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { plainRewrite } from "./plain-rewrite.js";
import { withSweepBundle, type Round, type Timed } from "./sweep-bundle.js";

/** A sweep may take at most this many times what a plain SQLite rewrite of the same rows takes on the same host. */
const GOAL = 2;
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

/** Writes the copy's pages out before the clock starts, so the kernel is not writing back the copy while the sweep runs. */
function flushed(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      flushed(path);
      continue;
    }
    if (!e.isFile()) continue;
    const fd = openSync(path, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

type Measured = Round & { plainMs: number; plainCpuMs: number };

/**
 * For each round: a fresh flushed copy of the seeded `seed` directory, the
 * bundled sweeps over it in a process of their own, then the plain rewrite
 * of the same rows on the same copy (plain-rewrite.ts), its reference.
 */
async function runCompiled(seed: string, n: number, rounds: number): Promise<Measured[]> {
  return withSweepBundle(async (sweep) => {
    const got: Measured[] = [];
    for (let r = 0; r < rounds; r++) {
      const dir = `${seed}-round-${r}`;
      cpSync(seed, dir, { recursive: true });
      flushed(dir);
      try {
        const round = await sweep(dir);
        const plain = plainRewrite(dir);
        if (plain.rows !== n) throw new Error(`the plain rewrite changed ${plain.rows} of ${n} rows`);
        got.push({ ...round, plainMs: plain.ms, plainCpuMs: plain.cpuMs });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return got;
  });
}

/**
 * The row of the median round by its ratio to the plain rewrite of the same
 * round; every round's rate and ratio listed in the order they ran.
 */
function row(measure: string, runs: readonly (Timed<{ count: number }> & { plainMs: number; plainCpuMs: number })[]): BenchRow {
  const rateOf = (t: Timed<{ count: number }>) => (t.result.count * 1000) / t.ms;
  const ratioOf = (t: { ms: number; plainMs: number }) => t.ms / t.plainMs;
  const median = [...runs].sort((a, b) => ratioOf(a) - ratioOf(b))[Math.floor(runs.length / 2)]!;
  const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
  const all = runs.length > 1 ? `; rounds ${runs.map((t) => `${fmt(rateOf(t))} (${ratioOf(t).toFixed(2)}x)`).join(" / ")}` : "";
  const ratio = ratioOf(median);
  return {
    measure,
    value:
      `${fmt(rateOf(median))} records/s, median of ${runs.length} (${median.result.count.toLocaleString("en-US")} in ${(median.ms / 1000).toFixed(2)} s; ` +
      `${(median.cpuMs / 1000).toFixed(2)} s CPU${all})`,
    reference:
      `plain SQLite payload rewrite of the same rows ${(median.plainMs / 1000).toFixed(2)} s ` +
      `(${fmt((median.result.count * 1000) / median.plainMs)} rows/s; ${(median.plainCpuMs / 1000).toFixed(2)} s CPU)`,
    ratio,
    goal: `<= ${GOAL}x the reference's time`,
    met: ratio <= GOAL,
  };
}

export const operatorSweeps: BenchSection = async () => {
  const n = Number(process.env.ENGRAM_BENCH_RECORDS ?? 100_000);
  const rounds = Number(process.env.ENGRAM_BENCH_SWEEP_ROUNDS ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("ENGRAM_BENCH_SWEEP_ROUNDS must be a whole number of at least 1");
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-sweeps-"));
  try {
    await seedV0(dir, n);
    // Its own writeback would otherwise land on the first round.
    flushed(dir);
    const got = await runCompiled(dir, n, rounds);
    for (const { up, down } of got) {
      if (up.result.migrated !== n || up.result.backlog !== 0) throw new Error(`migrate --apply did not converge: ${JSON.stringify(up.result)}`);
      if (down.result.reverted !== n || !down.result.applied) throw new Error(`migrate revert --apply did not converge: ${JSON.stringify(down.result)}`);
    }
    const ups = got.map(({ up, plainMs, plainCpuMs }) => ({ ...up, plainMs, plainCpuMs, result: { count: up.result.migrated } }));
    const downs = got.map(({ down, plainMs, plainCpuMs }) => ({ ...down, plainMs, plainCpuMs, result: { count: down.result.reverted } }));
    return [
      row(`migrate --apply, v0 -> v${CURRENT_SCHEMA_VERSION}, ${n.toLocaleString("en-US")} records`, ups),
      row(`migrate revert --to 1 --apply, ${n.toLocaleString("en-US")} records`, downs),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
