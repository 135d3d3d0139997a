/**
 * prune-expired --apply, spine-review purge --apply and spine-review
 * consolidate over ENGRAM_BENCH_RECORDS (default 100,000) records, each 512-d.
 *
 * Two stores are seeded once:
 * - the lifecycle store: of every ten records two are expired (not_after two
 *   days ago), two superseded (by a live record), two archived 100 days ago
 *   and four live. prune deletes the expired fifth, then purge --class
 *   superseded,archived (their default windows) the next two fifths; each
 *   row gives records deleted per second, and the store's size per second
 *   beside it, as every record is looked at.
 * - the consolidate store: every record live, on a random unit vector, with
 *   one planted near-duplicate in every thousand. Its vector index is built
 *   and saved while seeding, as a serving store keeps one, so the row times
 *   the sweep, not a first index build (which is printed apart).
 *
 * Each delete row's reference is a bare SQLite DELETE of the same rows on a
 * copy of the same store, in the same run (plainDeletes).
 *
 * As in operator-sweeps.ts, the verbs run in a child process from a bundle
 * built with dist/'s options (lifecycle-run.ts), on a fresh copy of the seed
 * for each of ENGRAM_BENCH_LIFECYCLE_ROUNDS rounds (default 1), flushed to
 * disk before the clock starts; a row gives the median round.
 */
import { execFile } from "node:child_process";
import { closeSync, cpSync, fsyncSync, mkdtempSync, openSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { bundleOptions } from "../../scripts/build.mjs";
import type { MemoryRecord } from "../../src/model/record.js";
import { ANONYMOUS } from "../../src/model/subject.js";
import type { ConsolidateReport, PruneReport, PurgeReport } from "../../src/operator/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { CURRENT_SCHEMA_VERSION } from "../../src/store/schema-version.js";
import { GATE_ON } from "../../src/store/store.js";
import { syntheticRecord } from "../../test/helpers/synthetic-record.js";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { plainDelete, type PlainRewrite } from "./plain-rewrite.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DELETE_GOAL = 50_000;
const CONSOLIDATE_GOAL_S = 60;
const DIM = 512;
const DAY = 86_400;

type Timed<T> = { result: T; ms: number; cpuMs: number };
type SweepsRound = { prune: Timed<PruneReport>; purge: Timed<Omit<PurgeReport, "results">> };
type ConsolidateRound = { consolidate: Timed<Omit<ConsolidateReport, "results">> };

const fmt = (x: number) => Math.round(x).toLocaleString("en-US");

function record(i: number, extra: Partial<MemoryRecord>): MemoryRecord {
  return syntheticRecord(i, { short_id: `B${String(i).padStart(9, "0")}`, ...extra });
}

/** Of every ten: 0-1 expired, 2-3 superseded by the live record four on, 4-5 archived 100 days ago, 6-9 live. */
function lifecycleState(i: number, now: number): Partial<MemoryRecord> {
  const k = i % 10;
  if (k <= 1) return { not_after: now - 2 * DAY };
  if (k <= 3) return { superseded_by: syntheticRecord(i + 4).id };
  if (k <= 5) return { archived_at: new Date((now - 100 * DAY) * 1000).toISOString() };
  return {};
}

async function seedLifecycle(dir: string, n: number): Promise<void> {
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  const vector = new Float32Array(DIM);
  for (let d = 0; d < DIM; d++) vector[d] = Math.sin(d + 1) / Math.sqrt(DIM / 2);
  const now = Math.floor(Date.now() / 1000);
  for (let start = 0; start < n; start += 5000) {
    store.transaction(() => {
      for (let i = start; i < Math.min(n, start + 5000); i++) store.writeRecord(record(i, lifecycleState(i, now)), vector, CURRENT_SCHEMA_VERSION);
    });
  }
  await store.close();
}

/** A small seeded generator, so every run seeds the same vectors. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every record live on a random unit vector; every thousandth a near-copy of the one before. Returns the index build's seconds. */
async function seedConsolidate(dir: string, n: number): Promise<number> {
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  const rand = mulberry32(27);
  let previous = new Float32Array(DIM);
  for (let start = 0; start < n; start += 5000) {
    store.transaction(() => {
      for (let i = start; i < Math.min(n, start + 5000); i++) {
        const v = new Float32Array(DIM);
        if (i % 1000 === 999) for (let d = 0; d < DIM; d++) v[d] = previous[d]! + (rand() - 0.5) * 0.01;
        else for (let d = 0; d < DIM; d++) v[d] = rand() + rand() + rand() - 1.5;
        store.writeRecord(record(i, { scope: `repo:${i % 7}` }), v, CURRENT_SCHEMA_VERSION);
        previous = v;
      }
    });
  }
  // A serving store keeps its vector index as a snapshot; build it once here and save it with the store.
  const t = performance.now();
  await store.neighbours([syntheticRecord(0).id], 1, { subject: ANONYMOUS, allOwners: true, gate: GATE_ON, now: Math.floor(Date.now() / 1000) });
  const buildS = (performance.now() - t) / 1000;
  await store.close();
  return buildS;
}

function flushed(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) flushed(path);
    else if (e.isFile()) {
      const fd = openSync(path, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }
}

type PlainDeletes = { prune: PlainRewrite; purge: PlainRewrite };

/**
 * Each delete row's reference (plainDelete) on a fresh copy of the seed, in
 * the same run: first the lapsed, unarchived records (prune's), then on what
 * is left the superseded and the archived ones (purge's); open, read and
 * close included. `bare` deletes the record rows alone, no trigger firing.
 */
function plainDeletes(seed: string, now: number, bare: boolean): PlainDeletes {
  const copy = `${seed}-plain`;
  cpSync(seed, copy, { recursive: true });
  flushed(copy);
  try {
    return {
      prune: plainDelete(copy, "json_extract(payload, '$.not_after') <= ? AND archived_at IS NULL", [now], bare),
      purge: plainDelete(copy, "superseded_by IS NOT NULL OR archived_at <= ?", [new Date((now - 90 * DAY) * 1000).toISOString()], bare),
    };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

async function rounds<T>(bundle: string, seed: string, mode: string, n: number): Promise<T[]> {
  const got: T[] = [];
  for (let r = 0; r < n; r++) {
    const dir = `${seed}-round-${r}`;
    cpSync(seed, dir, { recursive: true });
    flushed(dir);
    try {
      const { stdout } = await run(process.execPath, [bundle], { env: { ...process.env, ENGRAM_DATA_DIR: dir, ENGRAM_BENCH_LIFECYCLE: mode }, maxBuffer: 1 << 20 });
      got.push(JSON.parse(stdout.trim().split("\n").pop()!) as T);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return got;
}

function median<T>(xs: readonly T[], by: (x: T) => number): T {
  return [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)]!;
}

function deleteRow(measure: string, runs: readonly Timed<{ deleted: number }>[], size: number, plain: PlainRewrite): BenchRow {
  const rate = (t: Timed<{ deleted: number }>) => (t.result.deleted * 1000) / t.ms;
  const m = median(runs, rate);
  const all = runs.length > 1 ? `; rounds ${runs.map((t) => fmt(rate(t))).join(" / ")}` : "";
  const plainRate = (plain.rows * 1000) / plain.ms;
  return {
    measure,
    value:
      `${fmt(rate(m))} records deleted/s, median of ${runs.length} (${fmt(m.result.deleted)} in ${(m.ms / 1000).toFixed(2)} s, ` +
      `${(m.cpuMs / 1000).toFixed(2)} s CPU; ${fmt((size * 1000) / m.ms)} records of the store looked at/s${all})`,
    reference: `plain SQLite DELETE of the same ${fmt(plain.rows)} rows, triggers firing: ${fmt(plainRate)} rows/s`,
    // Time per record against the reference's, as #29 judges sweep rows; the goal stays #27's absolute rate.
    ratio: plainRate / rate(m),
    goal: `>= ${fmt(DELETE_GOAL)} records/s`,
    met: rate(m) >= DELETE_GOAL,
  };
}

/**
 * What the absolute delete goal asks of SQLite itself: the same rows deleted
 * with no trigger firing, so no change-log, term or vector row goes with
 * them. Below the goal here, no sweep that deletes records from this file
 * can meet it on this machine, whatever the sweep does.
 */
function floorRow(whose: string, plain: PlainRewrite, bare: PlainRewrite): BenchRow {
  const bareRate = (bare.rows * 1000) / bare.ms;
  return {
    measure: `plain SQLite DELETE of ${whose} ${fmt(bare.rows)} record rows alone, no trigger firing (the floor under the delete goal)`,
    value: `${fmt(bareRate)} rows/s`,
    reference: `the same with the store's triggers firing: ${fmt((plain.rows * 1000) / plain.ms)} rows/s`,
    ratio: plain.ms / plain.rows / (bare.ms / bare.rows),
    goal: `>= ${fmt(DELETE_GOAL)} rows/s`,
    met: bareRate >= DELETE_GOAL,
  };
}

export const lifecycleSweeps: BenchSection = async () => {
  const n = Number(process.env.ENGRAM_BENCH_RECORDS ?? 100_000);
  const count = Number(process.env.ENGRAM_BENCH_LIFECYCLE_ROUNDS ?? 1);
  if (!Number.isInteger(count) || count < 1) throw new Error("ENGRAM_BENCH_LIFECYCLE_ROUNDS must be a whole number of at least 1");
  const work = mkdtempSync(join(tmpdir(), "engram-bench-lifecycle-"));
  const out = mkdtempSync(join(ROOT, ".bench-lifecycle-"));
  try {
    await build(bundleOptions({ "lifecycle-run": "bench/rows/lifecycle-run.ts", "sweep-worker": "src/store/embedded/sweep/sweep-worker.ts" }, out));
    const bundle = join(out, "lifecycle-run.js");
    const lifecycle = join(work, "lifecycle");
    const similar = join(work, "consolidate");
    await seedLifecycle(lifecycle, n);
    const buildS = await seedConsolidate(similar, n);
    flushed(work);

    const sweeps = await rounds<SweepsRound>(bundle, lifecycle, "sweeps", count);
    const expired = 2 * Math.floor(n / 10) + Math.min(n % 10, 2);
    for (const { prune, purge } of sweeps) {
      if (prune.result.deleted !== expired || prune.result.found !== expired) throw new Error(`prune-expired --apply did not delete the expired fifth: ${JSON.stringify(prune.result)}`);
      if (purge.result.deleted !== purge.result.eligible || purge.result.appeared !== 0) throw new Error(`purge --apply did not converge: ${JSON.stringify(purge.result)}`);
    }
    const now = Math.floor(Date.now() / 1000);
    const plain = plainDeletes(lifecycle, now, false);
    const bare = plainDeletes(lifecycle, now, true);
    const similarRuns = await rounds<ConsolidateRound>(bundle, similar, "consolidate", count);
    for (const { consolidate } of similarRuns) if (consolidate.result.records !== n) throw new Error(`consolidate compared ${consolidate.result.records} of ${n} records`);
    const c = median(
      similarRuns.map((r) => r.consolidate),
      (t) => t.ms,
    );
    const size = n.toLocaleString("en-US");
    return [
      deleteRow(`prune-expired --apply, ${size} records (a fifth lapsed)`, sweeps.map((r) => r.prune), n, plain.prune),
      deleteRow(`spine-review purge --class superseded,archived --apply, the ${fmt(n - sweeps[0]!.prune.result.deleted)} records left`, sweeps.map((r) => r.purge), n, plain.purge),
      floorRow("prune's", plain.prune, bare.prune),
      floorRow("purge's", plain.purge, bare.purge),
      {
        measure: `spine-review consolidate --all-scopes, ${size} live records, top-k 5`,
        value:
          `${(c.ms / 1000).toFixed(1)} s, ${fmt((n * 1000) / c.ms)} records/s, median of ${similarRuns.length} ` +
          `(${(c.cpuMs / 1000).toFixed(1)} s CPU; ${fmt(c.result.pairs)} pairs; the index build it reuses took ${buildS.toFixed(1)} s while seeding)`,
        reference: "",
        goal: `< ${CONSOLIDATE_GOAL_S} s`,
        met: c.ms < CONSOLIDATE_GOAL_S * 1000,
      },
    ];
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
};
