import { createHash, type Hash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";

/**
 * The length and SHA-256 of a snapshot file, as its manifest records them.
 * SHA-256 rather than a cheaper sum: Node has it on every supported version
 * (zlib's crc32 only from 20.15), and with the CPU's SHA extensions it hashes
 * about 1.6 GB/s on the dev machine, so a file costs little more to check
 * than to read.
 */
export type FileSum = { bytes: number; sha256: string };

/** Bytes hashed at once: a few milliseconds at the speed above, the event loop's longest wait for a check. */
const CHUNK_BYTES = 4 * 1024 * 1024;

export function newHash(): Hash {
  return createHash("sha256");
}

export function isFileSum(value: unknown): value is FileSum {
  const sum = value as FileSum;
  return typeof sum === "object" && sum !== null && Number.isSafeInteger(sum.bytes) && sum.bytes >= 0 && typeof sum.sha256 === "string" && /^[0-9a-f]{64}$/.test(sum.sha256);
}

/**
 * Hashes `bytes` a chunk at a time, `between` running after each chunk (so
 * a slice read at once is never hashed at once); false when `between` said
 * to stop.
 */
export async function hashInChunks(hash: Hash, bytes: Uint8Array, between: () => Promise<boolean>): Promise<boolean> {
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    hash.update(bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES)));
    if (!(await between())) return false;
  }
  return true;
}

/** The sum of the file at `path`, read a chunk at a time. */
export function sumFile(path: string): FileSum {
  const fd = openSync(path, "r");
  try {
    const hash = newHash();
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let bytes = 0;
    for (let n; (n = readSync(fd, chunk, 0, CHUNK_BYTES, null)) > 0; bytes += n) hash.update(chunk.subarray(0, n));
    return { bytes, sha256: hash.digest("hex") };
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the file at `path` has the length and checksum `want` records.
 * A file of another length fails before a byte of it is read.
 */
export function fileMatches(path: string, want: FileSum): "ok" | "size" | "checksum" {
  const fd = openSync(path, "r");
  try {
    if (fstatSync(fd).size !== want.bytes) return "size";
  } finally {
    closeSync(fd);
  }
  const got = sumFile(path);
  if (got.bytes !== want.bytes) return "size";
  return got.sha256 === want.sha256 ? "ok" : "checksum";
}

/**
 * fileMatches for a start that must keep answering: the file is read
 * `sliceBytes` at a time off the event loop and hashed in chunks, `between`
 * running after each chunk; false from it stops the check ("stopped").
 */
export async function fileMatchesInSlices(
  path: string,
  want: FileSum,
  between: () => Promise<boolean>,
  sliceBytes: number,
): Promise<"ok" | "size" | "checksum" | "stopped"> {
  const file = await open(path, "r");
  try {
    if ((await file.stat()).size !== want.bytes) return "size";
    const hash = newHash();
    const slice = Buffer.allocUnsafe(Math.min(sliceBytes, Math.max(1, want.bytes)));
    let position = 0;
    for (;;) {
      const { bytesRead } = await file.read(slice, 0, slice.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      if (!(await hashInChunks(hash, slice.subarray(0, bytesRead), between))) return "stopped";
    }
    if (position !== want.bytes) return "size";
    return hash.digest("hex") === want.sha256 ? "ok" : "checksum";
  } finally {
    await file.close();
  }
}
