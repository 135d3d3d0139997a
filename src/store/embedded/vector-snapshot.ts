import { randomBytes } from "node:crypto";
import {
  closeSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { endianness } from "node:os";
import { join } from "node:path";
import type { ResolvedOptions } from "./vector-options.js";
import type { VectorSlots } from "./vector-slots.js";

/**
 * A vector index on disk. `manifest.json` names a vectors file (slot keys
 * as float64, then the slab rows as float32, native byte order) and, once
 * complete, a usearch graph file. Data files are written under fresh names
 * and the manifest is swapped in last by rename, so a crash mid-save leaves
 * the previous snapshot loadable. Stale files are deleted afterwards.
 */

/** What a snapshot says about the data it was taken from; opaque to the index. */
export type SnapshotOrigin = Record<string, string | number>;

const MANIFEST = "manifest.json";
const FORMAT = "engram-vector-index";
// 2: the graph file is usearch's (int8), no longer hnswlib's.
const FORMAT_VERSION = 2;

export type Manifest = {
  format: string;
  version: number;
  endianness: string;
  dim: number;
  highWater: number;
  live: number;
  vectorsFile: string;
  graphFile: string | null;
  options: ResolvedOptions;
  origin: SnapshotOrigin;
};

export type SnapshotFiles = { vectorsFile: string; graphFile: string | null };

/** Writes the slots (and the graph, through `saveGraph`, when given) and swaps the manifest in. */
export function writeSnapshot(
  dir: string,
  slots: VectorSlots,
  live: number,
  options: ResolvedOptions,
  origin: SnapshotOrigin,
  saveGraph: ((path: string) => void) | undefined,
): SnapshotFiles {
  mkdirSync(dir, { recursive: true });
  const generation = `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
  const vectorsFile = `vectors-${generation}.bin`;
  const graphFile = saveGraph !== undefined ? `graph-${generation}.usearch` : null;

  const fd = openSync(join(dir, vectorsFile), "w");
  try {
    writeAll(fd, new Uint8Array(slots.slotKey.buffer, 0, slots.highWater * 8));
    writeAll(fd, new Uint8Array(slots.slab.buffer, 0, slots.highWater * slots.dim * 4));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (graphFile !== null) {
    saveGraph!(join(dir, graphFile));
    fsyncPath(join(dir, graphFile));
  }

  const manifest: Manifest = {
    format: FORMAT,
    version: FORMAT_VERSION,
    endianness: endianness(),
    dim: slots.dim,
    highWater: slots.highWater,
    live,
    vectorsFile,
    graphFile,
    options,
    origin,
  };
  const tmp = join(dir, `${MANIFEST}.${generation}.tmp`);
  writeFileSync(tmp, JSON.stringify(manifest));
  fsyncPath(tmp);
  renameSync(tmp, join(dir, MANIFEST));
  fsyncPath(dir);
  return { vectorsFile, graphFile };
}

/** Deletes what earlier saves left under `dir`, keeping the files the manifest names now. */
export function removeStaleFiles(dir: string, keep: SnapshotFiles): void {
  for (const name of readdirSync(dir)) {
    const ours = /^(vectors|graph)-.*\.(bin|usearch)$/.test(name) || /^manifest\.json\..*\.tmp$/.test(name);
    if (ours && name !== keep.vectorsFile && name !== keep.graphFile) rmSync(join(dir, name), { force: true });
  }
}

/** The manifest under `dir`, or undefined when there is none this build can read for `dim`. */
export function readManifest(dir: string, dim: number): Manifest | undefined {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")) as Manifest;
  } catch {
    return undefined;
  }
  if (
    manifest.format !== FORMAT ||
    manifest.version !== FORMAT_VERSION ||
    manifest.endianness !== endianness() ||
    manifest.dim !== dim ||
    !Number.isInteger(manifest.highWater) ||
    manifest.highWater < 0
  ) {
    return undefined;
  }
  return manifest;
}

/** Fills slots [0, highWater) from a vectors file; false if it is the wrong size. */
export function readVectors(path: string, slots: VectorSlots, highWater: number): boolean {
  const fd = openSync(path, "r");
  try {
    // Checked before allocating, so a damaged manifest cannot ask for gigabytes.
    if (fstatSync(fd).size !== highWater * (8 + slots.dim * 4)) return false;
    const { keyBytes, rowBytes } = slotBytes(slots, highWater);
    if (!readAll(fd, keyBytes) || !readAll(fd, rowBytes)) return false;
  } finally {
    closeSync(fd);
  }
  return mapSlots(slots, highWater, 0, highWater) && finishSlots(slots);
}

/** Bytes read per slice by readVectorsInSlices: tens of milliseconds of reading. */
export const READ_SLICE_BYTES = 32 * 1024 * 1024;
/** Slots mapped to their keys per slice. */
const MAP_SLICE = 65_536;

/**
 * readVectors for a start that must keep answering: the file is read a
 * slice at a time off the event loop (a million 512-d rows are 2 GB, seconds
 * of one synchronous read), and the slots are mapped a slice per turn.
 * `between` runs after each slice; false from it stops the read, and then,
 * as for a file of the wrong size, the answer is false.
 */
export async function readVectorsInSlices(
  path: string,
  slots: VectorSlots,
  highWater: number,
  between: () => Promise<boolean>,
  sliceBytes = READ_SLICE_BYTES,
): Promise<boolean> {
  const file = await open(path, "r");
  try {
    if ((await file.stat()).size !== highWater * (8 + slots.dim * 4)) return false;
    let position = 0;
    for (const into of Object.values(slotBytes(slots, highWater))) {
      for (let done = 0; done < into.length; ) {
        const { bytesRead } = await file.read(into, done, Math.min(sliceBytes, into.length - done), position);
        if (bytesRead === 0) return false;
        done += bytesRead;
        position += bytesRead;
        if (!(await between())) return false;
      }
    }
  } finally {
    await file.close();
  }
  for (let from = 0; from < highWater; from += MAP_SLICE) {
    if (!mapSlots(slots, highWater, from, Math.min(highWater, from + MAP_SLICE))) return false;
    if (!(await between())) return false;
  }
  return finishSlots(slots);
}

/** The bytes a vectors file fills: the slot keys, then the rows; the slots grown to hold `highWater` first. */
function slotBytes(slots: VectorSlots, highWater: number): { keyBytes: Uint8Array; rowBytes: Uint8Array } {
  if (highWater > slots.capacity) slots.grow(highWater);
  slots.highWater = highWater;
  return {
    keyBytes: new Uint8Array(slots.slotKey.buffer, 0, highWater * 8),
    rowBytes: new Uint8Array(slots.slab.buffer, 0, highWater * slots.dim * 4),
  };
}

/** Maps slots [from, to) to their keys, a free slot to the free list; false on a key that cannot be one or is there twice. */
function mapSlots(slots: VectorSlots, highWater: number, from: number, to: number): boolean {
  for (let slot = from; slot < Math.min(to, highWater); slot++) {
    const key = slots.slotKey[slot]!;
    if (key < 0) {
      slots.free.push(slot);
      continue;
    }
    if (!Number.isSafeInteger(key) || slots.slotOf.has(key)) return false;
    slots.slotOf.set(key, slot);
  }
  return true;
}

function finishSlots(slots: VectorSlots): true {
  // Reuse low slots first, as a freshly built index would.
  slots.free.reverse();
  return true;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

function readAll(fd: number, into: Uint8Array): boolean {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, null);
    if (n === 0) return false;
    done += n;
  }
  return true;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
