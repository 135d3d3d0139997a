import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { fileMatches, fileMatchesInSlices, hashInChunks, newHash } from "./vector-file-sum.js";
import { MANIFEST, readManifest, refused, type Manifest, type SnapshotFault } from "./vector-snapshot.js";
import type { VectorSlots } from "./vector-slots.js";

/**
 * Reading a snapshot's files (vector-snapshot.ts) into a vector index, each
 * checked against the length and SHA-256 its manifest records: the vectors
 * file is hashed as it is read, and the graph file is hashed whole before
 * usearch is handed its path. Each answers undefined when the file is as
 * the manifest says, else the fault, naming the file and the manifest for
 * setAside; the sliced forms also answer "stopped" when `between` said so.
 */

/** Bytes read per slice by the sliced forms: tens of milliseconds of reading and hashing. */
export const READ_SLICE_BYTES = 32 * 1024 * 1024;
/** Slots mapped to their keys per slice. */
const MAP_SLICE = 65_536;

type Kind = "vectors" | "graph";

/** Fills slots [0, highWater) from the manifest's vectors file. */
export function readVectors(dir: string, manifest: Manifest, slots: VectorSlots): SnapshotFault | undefined {
  const name = manifest.vectorsFile;
  return guarded("vectors", name, () => {
    const fd = openSync(join(dir, name), "r");
    const hash = newHash();
    try {
      // Checked before allocating, so only a file of that size can make the slots grow.
      if (fstatSync(fd).size !== manifest.vectors.bytes) return fault("vectors", "size", name);
      for (const into of Object.values(slotBytes(slots, manifest.highWater))) {
        if (!readAll(fd, into)) return fault("vectors", "size", name);
        hash.update(into);
      }
    } finally {
      closeSync(fd);
    }
    if (hash.digest("hex") !== manifest.vectors.sha256) return fault("vectors", "checksum", name);
    return mapSlots(slots, 0, manifest.highWater) ? finishSlots(slots) : fault("vectors", "content", name);
  });
}

/**
 * readVectors for a start that must keep answering: the file is read a
 * slice at a time off the event loop (a million 512-d rows are 2 GB, seconds
 * of one synchronous read) and hashed in chunks, and the slots are mapped a
 * slice per turn, `between` running after each chunk and slice.
 */
export async function readVectorsInSlices(
  dir: string,
  manifest: Manifest,
  slots: VectorSlots,
  between: () => Promise<boolean>,
  sliceBytes = READ_SLICE_BYTES,
): Promise<SnapshotFault | "stopped" | undefined> {
  const name = manifest.vectorsFile;
  const { highWater } = manifest;
  return guardedAsync("vectors", name, async () => {
    const file = await open(join(dir, name), "r");
    const hash = newHash();
    try {
      if ((await file.stat()).size !== manifest.vectors.bytes) return fault("vectors", "size", name);
      let position = 0;
      for (const into of Object.values(slotBytes(slots, highWater))) {
        for (let done = 0; done < into.length; ) {
          const { bytesRead } = await file.read(into, done, Math.min(sliceBytes, into.length - done), position);
          if (bytesRead === 0) return fault("vectors", "size", name);
          if (!(await hashInChunks(hash, into.subarray(done, done + bytesRead), between))) return "stopped";
          done += bytesRead;
          position += bytesRead;
        }
      }
    } finally {
      await file.close();
    }
    if (hash.digest("hex") !== manifest.vectors.sha256) return fault("vectors", "checksum", name);
    for (let from = 0; from < highWater; from += MAP_SLICE) {
      if (!mapSlots(slots, from, Math.min(highWater, from + MAP_SLICE))) return fault("vectors", "content", name);
      if (!(await between())) return "stopped";
    }
    return finishSlots(slots);
  });
}

/** Checks the manifest's graph file (if it names one) before usearch may read it. */
export function checkGraph(dir: string, manifest: Manifest): SnapshotFault | undefined {
  const name = manifest.graphFile;
  if (name === null || manifest.graph === null) return undefined;
  const sum = manifest.graph;
  return guarded("graph", name, () => {
    const got = fileMatches(join(dir, name), sum);
    return got === "ok" ? undefined : fault("graph", got, name);
  });
}

/** checkGraph a slice at a time, `between` running after each. */
export async function checkGraphInSlices(
  dir: string,
  manifest: Manifest,
  between: () => Promise<boolean>,
  sliceBytes = READ_SLICE_BYTES,
): Promise<SnapshotFault | "stopped" | undefined> {
  const name = manifest.graphFile;
  if (name === null || manifest.graph === null) return undefined;
  const sum = manifest.graph;
  return guardedAsync("graph", name, async () => {
    const got = await fileMatchesInSlices(join(dir, name), sum, between, sliceBytes);
    return got === "ok" ? undefined : got === "stopped" ? got : fault("graph", got, name);
  });
}

/**
 * Every check a load makes, without loading: the manifest, then each file
 * it names against its recorded length and checksum. Undefined when the
 * snapshot under `dir` is whole and written for `dim`.
 */
export function verifySnapshot(dir: string, dim: number): SnapshotFault | undefined {
  const read = readManifest(dir, dim);
  if (read.fault !== undefined) return read.fault;
  const { manifest } = read;
  const vectors = guarded("vectors", manifest.vectorsFile, () => {
    const got = fileMatches(join(dir, manifest.vectorsFile), manifest.vectors);
    return got === "ok" ? undefined : fault("vectors", got, manifest.vectorsFile);
  });
  return vectors ?? checkGraph(dir, manifest);
}

/** The fault of a snapshot whose `kind` file was read and found wrong; it and the manifest naming it are set aside. */
export function fault(kind: Kind, what: "size" | "checksum" | "content" | "match", name: string): SnapshotFault {
  const reason = { size: "size mismatch", checksum: "checksum mismatch", content: "content invalid", match: "does not match the vectors" }[what];
  return { reason: `${kind} file ${reason}`, damaged: [name, MANIFEST] };
}

/** A file that cannot be opened or read is a fault of the snapshot too, never an error of the load. */
function guarded(kind: Kind, name: string, check: () => SnapshotFault | undefined): SnapshotFault | undefined {
  try {
    return check();
  } catch (err) {
    return ioFault(kind, name, err);
  }
}

async function guardedAsync(kind: Kind, name: string, check: () => Promise<SnapshotFault | "stopped" | undefined>): Promise<SnapshotFault | "stopped" | undefined> {
  try {
    return await check();
  } catch (err) {
    return ioFault(kind, name, err);
  }
}

function ioFault(kind: Kind, name: string, err: unknown): SnapshotFault {
  if ((err as NodeJS.ErrnoException).code === "ENOENT") return refused(`${kind} file missing`, [MANIFEST]).fault;
  return refused(`${kind} file unreadable`, [name, MANIFEST]).fault;
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
function mapSlots(slots: VectorSlots, from: number, to: number): boolean {
  for (let slot = from; slot < to; slot++) {
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

function finishSlots(slots: VectorSlots): undefined {
  // Reuse low slots first, as a freshly built index would.
  slots.free.reverse();
  return undefined;
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
