import { createHash, randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { endianness } from "node:os";
import { join } from "node:path";
import { isFileSum, newHash, sumFile, type FileSum } from "./vector-file-sum.js";
import type { ResolvedOptions } from "./vector-options.js";
import type { VectorSlots } from "./vector-slots.js";

/**
 * A vector index on disk. `manifest.json` names a vectors file (slot keys
 * as float64, then the slab rows as float32, native byte order) and, once
 * complete, a usearch graph file, with the length and SHA-256 of each, and
 * carries a SHA-256 of its own content. Data files are written under fresh
 * names and the manifest is swapped in last by rename, so a crash mid-save
 * leaves the previous snapshot loadable. Stale files are deleted afterwards.
 *
 * usearch trusts the graph file it is handed and dies in native code on a
 * damaged one, so nothing is read from a file before it has been checked
 * against the manifest (vector-snapshot-read.ts). A snapshot that fails is
 * set aside (`setAside`) and the index rebuilt from the records.
 */

/** What a snapshot says about the data it was taken from; opaque to the index. */
export type SnapshotOrigin = Record<string, string | number>;

export const MANIFEST = "manifest.json";
/** Appended to the name of a damaged snapshot file when it is set aside. */
export const DAMAGED_SUFFIX = ".damaged";
const FORMAT = "engram-vector-index";
// 2: the graph file is usearch's (int8), no longer hnswlib's.
// 3: every file's length and SHA-256, and the manifest's own checksum.
const FORMAT_VERSION = 3;
const UNCHECKED_VERSION = 2;
const GENERATION = "[0-9a-z]+-[0-9a-f]{8}";
const VECTORS_NAME = new RegExp(`^vectors-(${GENERATION})\\.bin$`);
const GRAPH_NAME = new RegExp(`^graph-(${GENERATION})\\.usearch$`);

export type Manifest = {
  format: string;
  version: number;
  endianness: string;
  dim: number;
  highWater: number;
  live: number;
  vectorsFile: string;
  vectors: FileSum;
  graphFile: string | null;
  graph: FileSum | null;
  options: ResolvedOptions;
  origin: SnapshotOrigin;
};

/**
 * Why a snapshot was not used. `reason` is fixed text for the log;
 * `damaged` names the files under the snapshot folder that failed a check
 * (the manifest too when it names a damaged file), empty when the snapshot
 * is whole but not for this start (none there, another dimension, an older
 * format).
 */
export type SnapshotFault = { reason: string; damaged: string[] };

/** Hears why a load found no usable snapshot. */
export type FaultReport = (fault: SnapshotFault) => void;

export type ManifestRead = { manifest: Manifest; fault?: undefined } | { manifest?: undefined; fault: SnapshotFault };

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

  const keys = new Uint8Array(slots.slotKey.buffer, 0, slots.highWater * 8);
  const rows = new Uint8Array(slots.slab.buffer, 0, slots.highWater * slots.dim * 4);
  const fd = openSync(join(dir, vectorsFile), "w");
  try {
    writeAll(fd, keys);
    writeAll(fd, rows);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const vectors: FileSum = { bytes: keys.length + rows.length, sha256: newHash().update(keys).update(rows).digest("hex") };
  let graph: FileSum | null = null;
  if (graphFile !== null) {
    saveGraph!(join(dir, graphFile));
    fsyncPath(join(dir, graphFile));
    // Summed from the file, not from memory: usearch writes it, and the sum must say what is on disk.
    graph = sumFile(join(dir, graphFile));
  }

  const body: Manifest = {
    format: FORMAT,
    version: FORMAT_VERSION,
    endianness: endianness(),
    dim: slots.dim,
    highWater: slots.highWater,
    live,
    vectorsFile,
    vectors,
    graphFile,
    graph,
    options,
    origin,
  };
  const tmp = join(dir, `${MANIFEST}.${generation}.tmp`);
  writeFileSync(tmp, JSON.stringify({ ...body, checksum: sealOf(body) }));
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

/**
 * The manifest under `dir` when it is whole and written for `dim` by this
 * format; otherwise why not. Its own checksum is checked before any field
 * is trusted, and it may name only files of the one generation it wrote.
 */
export function readManifest(dir: string, dim: number): ManifestRead {
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST), "utf8");
  } catch (err) {
    return refused((err as NodeJS.ErrnoException).code === "ENOENT" ? "no snapshot" : "manifest unreadable");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refused("manifest is not JSON", [MANIFEST]);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return refused("manifest is not JSON", [MANIFEST]);
  const { checksum, ...body } = parsed as Record<string, unknown>;
  // Versions are told apart before the checksum: a newer build may seal its manifest differently, and its snapshot is not damaged.
  if (typeof body.version === "number" && body.version > FORMAT_VERSION) return refused("written by a newer version");
  if (checksum === undefined && body.format === FORMAT && body.version === UNCHECKED_VERSION) {
    return refused("written by an older version, without checksums");
  }
  if (typeof checksum !== "string" || checksum !== sealOf(body)) return refused("manifest checksum mismatch", [MANIFEST]);
  const m = body as Manifest;
  if (m.format !== FORMAT || m.version !== FORMAT_VERSION) return refused("another format");
  if (m.endianness !== endianness()) return refused("written on a machine of the other byte order");
  if (m.dim !== dim) return refused("another dimension");
  if (!describesOwnFiles(m)) return refused("manifest names files this version does not write", [MANIFEST]);
  return { manifest: m };
}

/**
 * Moves the files a fault names aside, as `<name>.damaged` beside the rest,
 * replacing whatever an earlier fault set aside: the last damaged snapshot
 * stays for inspection, and the next start finds no snapshot, so the
 * damage is met (and logged) once. Best effort: a folder that refuses the
 * rename costs the next start the same check and rebuild, never the start.
 */
export function setAside(dir: string, fault: SnapshotFault): void {
  // Only files still there: a second load meeting the same damage must not clear what the first set aside.
  const present = fault.damaged.filter((name) => existsSync(join(dir, name)));
  if (present.length === 0) return;
  try {
    for (const name of readdirSync(dir)) if (name.endsWith(DAMAGED_SUFFIX)) rmSync(join(dir, name), { force: true });
  } catch {
    // nothing set aside earlier can be listed; the renames below still try
  }
  for (const name of present) {
    try {
      renameSync(join(dir, name), join(dir, name + DAMAGED_SUFFIX));
    } catch {
      // gone already (a missing file is itself the fault), or the folder is read-only
    }
  }
}

export function refused(reason: string, damaged: string[] = []): { fault: SnapshotFault } {
  return { fault: { reason, damaged } };
}

function sealOf(body: object): string {
  return createHash("sha256").update(JSON.stringify(body)).digest("hex");
}

/** Whether the manifest names one generation's vectors file (and graph file) inside the folder, with sums that fit the slots. */
function describesOwnFiles(m: Manifest): boolean {
  const vectorsName = typeof m.vectorsFile === "string" ? VECTORS_NAME.exec(m.vectorsFile) : null;
  if (vectorsName === null || !Number.isSafeInteger(m.highWater) || m.highWater < 0) return false;
  if (!Number.isSafeInteger(m.live) || m.live < 0 || m.live > m.highWater) return false;
  if (!isFileSum(m.vectors) || m.vectors.bytes !== m.highWater * (8 + m.dim * 4)) return false;
  if (m.graphFile === null) return m.graph === null;
  const graphName = typeof m.graphFile === "string" ? GRAPH_NAME.exec(m.graphFile) : null;
  return graphName !== null && graphName[1] === vectorsName[1] && isFileSum(m.graph) && m.graph.bytes > 0;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
