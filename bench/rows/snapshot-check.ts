/**
 * What checking a vector snapshot costs. Every file's length and SHA-256 are
 * checked before anything reads it (vector-snapshot-read.ts), so a start
 * pays one extra read of the graph file and the hashing of both files.
 *
 *  - At ENGRAM_BENCH_RECORDS (default 100000) 512-d records, a real index
 *    with its graph: the check alone (both files, warm page cache) against
 *    a plain read of the same bytes; the load in slices as a start does it,
 *    with the longest the event loop is held between two slices; and the
 *    hashing a save adds.
 *  - At each size in ENGRAM_BENCH_SNAPSHOT_STAND_IN (e.g. "1000000"; none by
 *    default, it writes 2 GB a million): the vectors file written for real
 *    from that many slots, and in place of the graph (whose build would take
 *    many minutes) a file of random bytes sized as the real graph's bytes per
 *    record times the size. Hashing does not depend on the bytes, so the
 *    check is timed as it would be; nothing is loaded from the stand-in.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { VectorIndex } from "../../src/store/embedded/vector/vector-index.js";
import { resolveOptions } from "../../src/store/embedded/vector/vector-options.js";
import { VectorSlots } from "../../src/store/embedded/vector/vector-slots.js";
import { readManifest, writeSnapshot } from "../../src/store/embedded/vector/vector-snapshot.js";
import { checkGraphInSlices, READ_SLICE_BYTES, readVectorsInSlices, verifySnapshot } from "../../src/store/embedded/vector/vector-snapshot-read.js";
import { clustered, mulberry32 } from "../../test/helpers/synthetic-vectors.js";
import type { BenchRow, BenchSection } from "../bench-row.js";

const N = Number(process.env.ENGRAM_BENCH_RECORDS ?? 100_000);
const STAND_IN = (process.env.ENGRAM_BENCH_SNAPSHOT_STAND_IN ?? "").split(",").map(Number).filter((n) => n > 0);
const DIM = 512;
const RUNS = 3;
const HOLD_GOAL_MS = 50;

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const thousands = (n: number) => `${Math.round(n / 1000)}k`;

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median of RUNS timed calls, after one untimed call that fills the page cache. */
async function timed(fn: () => unknown): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Reads the files whole, 4 MiB at a time, hashing nothing: the floor a check cannot go under. */
function plainRead(paths: string[]): void {
  const chunk = Buffer.allocUnsafe(4 * 1024 * 1024);
  for (const path of paths) {
    const fd = openSync(path, "r");
    try {
      while (readSync(fd, chunk, 0, chunk.length, null) > 0);
    } finally {
      closeSync(fd);
    }
  }
}

/** The snapshot's files under `dir`, as its manifest names them. */
function filesOf(dir: string): { paths: string[]; vectorsBytes: number; graphBytes: number } {
  const { manifest } = readManifest(dir, DIM);
  if (manifest === undefined) throw new Error("the bench snapshot has no readable manifest");
  const paths = [join(dir, manifest.vectorsFile), ...(manifest.graphFile === null ? [] : [join(dir, manifest.graphFile)])];
  return { paths, vectorsBytes: manifest.vectors.bytes, graphBytes: manifest.graph?.bytes ?? 0 };
}

type Sliced = { ms: number; vectorsHoldMs: number; graphHoldMs: number; plainHoldMs: number };

/**
 * The vectors read and both files checked in slices, as a start does, with
 * the event loop's longest delay meanwhile (perf_hooks' monitor, 1 ms
 * resolution): what a request arriving during the check could wait. The
 * vectors read also grows the slots and maps a slice of keys per turn, as
 * it did before the check; the graph's check is reading and hashing alone.
 */
async function slicedCheck(dir: string, paths: string[]): Promise<Sliced> {
  const { manifest } = readManifest(dir, DIM);
  const between = async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return true;
  };
  const monitored = async <T>(fn: () => Promise<T>): Promise<{ value: T; holdMs: number }> => {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const value = await fn();
    delay.disable();
    return { value, holdMs: delay.max / 1e6 };
  };
  const t = performance.now();
  const read = await monitored(() => readVectorsInSlices(dir, manifest!, new VectorSlots(DIM), between));
  const graph = await monitored(() => checkGraphInSlices(dir, manifest!, between));
  const ms = performance.now() - t;
  if (read.value !== undefined || graph.value !== undefined) throw new Error("the bench snapshot failed its own check");
  return { ms, vectorsHoldMs: read.holdMs, graphHoldMs: graph.holdMs, plainHoldMs: await slicedPlainRead(paths) };
}

/** The same files read in the same slices with nothing hashed, under the same monitor: what the start held before the check. */
async function slicedPlainRead(paths: string[]): Promise<number> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const slice = Buffer.allocUnsafe(READ_SLICE_BYTES);
  for (const path of paths) {
    const file = await open(path, "r");
    try {
      while ((await file.read(slice, 0, slice.length, null)).bytesRead > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      await file.close();
    }
  }
  delay.disable();
  return delay.max / 1e6;
}

function rows(size: number, what: string, dir: string, check: number, plain: number, sliced: Sliced): BenchRow[] {
  const { vectorsBytes, graphBytes } = filesOf(dir);
  const files = `vectors ${mb(vectorsBytes)} + graph ${mb(graphBytes)}${what}`;
  return [
    {
      measure: `snapshot check at ${thousands(size)} records (${files})`,
      value: `${check.toFixed(0)} ms (${((vectorsBytes + graphBytes) / 1e6 / (check / 1000)).toFixed(0)} MB/s)`,
      reference: `plain read of the same files ${plain.toFixed(0)} ms`,
      ratio: check / plain,
      goal: "no bound set: quoted",
      met: true,
    },
    {
      measure: `snapshot checked in slices at ${thousands(size)} records: longest event-loop delay while the graph file is read and hashed`,
      value: `${sliced.graphHoldMs.toFixed(1)} ms (vectors read, hashed and mapped: ${sliced.vectorsHoldMs.toFixed(1)} ms; whole read ${sliced.ms.toFixed(0)} ms)`,
      reference: `the same slices read, nothing hashed: ${sliced.plainHoldMs.toFixed(1)} ms`,
      goal: `<= ${HOLD_GOAL_MS} ms`,
      met: sliced.graphHoldMs <= HOLD_GOAL_MS,
    },
  ];
}

async function realIndex(dir: string): Promise<BenchRow[]> {
  const draw = clustered(4242, DIM);
  let t = performance.now();
  const index = new VectorIndex(DIM);
  for (let key = 0; key < N; key++) index.upsert(key, draw());
  console.log(`  built ${N} records with their graph in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  index.save(dir);
  const save = performance.now() - t;
  const { paths } = filesOf(dir);
  const check = await timed(() => {
    if (verifySnapshot(dir, DIM) !== undefined) throw new Error("the bench snapshot failed its own check");
  });
  const plain = await timed(() => plainRead(paths));
  const sliced = await slicedCheck(dir, paths);
  t = performance.now();
  if (VectorIndex.load(dir, DIM) === undefined) throw new Error("the bench snapshot did not load");
  const load = performance.now() - t;
  console.log(`  save ${save.toFixed(0)} ms (the vectors hashed in memory, the graph read back and hashed); load in one piece ${load.toFixed(0)} ms`);
  return [
    ...rows(N, "", dir, check, plain, sliced),
    {
      measure: `snapshot load at ${thousands(N)} records, checks included`,
      value: `${load.toFixed(0)} ms`,
      reference: `of which the check ${check.toFixed(0)} ms`,
      ratio: load / check,
      goal: "no bound set: quoted",
      met: true,
    },
  ];
}

/** The stand-in at `size`: see the header. */
async function standIn(dir: string, size: number, graphBytesPerRecord: number): Promise<BenchRow[]> {
  const slots = new VectorSlots(DIM);
  slots.grow(size);
  const rand = mulberry32(size);
  for (let i = 0; i < size * DIM; i++) slots.slab[i] = rand() - 0.5;
  for (let slot = 0; slot < size; slot++) slots.slotKey[slot] = slot;
  slots.highWater = size;
  const graphBytes = Math.round(graphBytesPerRecord * size);
  const t = performance.now();
  writeSnapshot(dir, slots, size, resolveOptions({}), {}, (path) => {
    const fill = Buffer.allocUnsafe(graphBytes);
    for (let i = 0; i + 4 <= fill.length; i += 4) fill.writeUInt32LE((rand() * 2 ** 32) >>> 0, i);
    writeFileSync(path, fill);
  });
  console.log(`  stand-in at ${size}: written (random graph included) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const { paths } = filesOf(dir);
  const check = await timed(() => {
    if (verifySnapshot(dir, DIM) !== undefined) throw new Error("the stand-in failed its own check");
  });
  const plain = await timed(() => plainRead(paths));
  const sliced = await slicedCheck(dir, paths);
  return rows(size, `, a stand-in of ${graphBytesPerRecord.toFixed(0)} bytes a record`, dir, check, plain, sliced);
}

export const snapshotCheck: BenchSection = async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-snapshot-"));
  try {
    const out = await realIndex(join(dir, "real"));
    const { graphBytes } = filesOf(join(dir, "real"));
    rmSync(join(dir, "real"), { recursive: true, force: true });
    for (const size of STAND_IN) {
      out.push(...(await standIn(join(dir, `stand-in-${size}`), size, graphBytes / N)));
      rmSync(join(dir, `stand-in-${size}`), { recursive: true, force: true });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
