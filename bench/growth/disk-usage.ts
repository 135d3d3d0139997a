/**
 * Bytes a data directory holds on disk after a clean close: the SQLite file
 * (its WAL folded in) and the vector index snapshot beside it, apart, since
 * they grow for different reasons.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function bytesUnder(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.blocks * 512;
  let sum = 0;
  for (const name of readdirSync(path)) sum += bytesUnder(join(path, name));
  return sum;
}

export type DiskFigures = { totalB: number; sqliteB: number; snapshotB: number };

export function diskUsage(dir: string): DiskFigures {
  const totalB = bytesUnder(dir);
  let snapshotB = 0;
  try {
    snapshotB = bytesUnder(join(dir, "vectors"));
  } catch {
    // no snapshot saved
  }
  return { totalB, sqliteB: totalB - snapshotB, snapshotB };
}
