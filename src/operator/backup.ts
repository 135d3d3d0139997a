import { existsSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import type { EmbeddedStore } from "../store/embedded/index.js";

export type BackupReport = {
  file: string;
  /** Records in the copy, counted by opening it. */
  records: number;
  bytes: number;
  /** What a restore needs besides the file: nothing; the vector snapshot is rebuilt. */
  vector_snapshot: "rebuilt";
};

/** The backup target exists already; a backup never overwrites a file. */
export class BackupTargetExists extends Error {
  override readonly name = "BackupTargetExists";
}

/**
 * A consistent copy of the store's database, taken with SQLite's online
 * backup API while a server may keep writing: the copy is one snapshot of
 * the database, every committed transaction up to some moment and none
 * after. The copy is then opened on its own and checked, so a report is
 * only written for a file that opens and holds its records.
 *
 * The vector index snapshot (`vectors/` beside engram.db) is not copied:
 * it is derived from the records, and a store without one rebuilds it at
 * its first start. Restoring is putting the file as `engram.db` in an
 * empty ENGRAM_DATA_DIR.
 */
export async function backupStore(store: EmbeddedStore, file: string, onProgress?: (done: number, total: number) => void): Promise<BackupReport> {
  if (existsSync(file)) throw new BackupTargetExists("the backup file already exists; a backup never overwrites a file");
  await store.database.backup(file, {
    progress: ({ totalPages, remainingPages }) => {
      onProgress?.(totalPages - remainingPages, totalPages);
      // Pages per step; a server writing meanwhile waits at most one step.
      return 256;
    },
  });
  const copy = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const check = copy.pragma("quick_check", { simple: true });
    if (check !== "ok") throw new Error("the copy failed its integrity check");
    const records = (copy.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n;
    return { file, records, bytes: statSync(file).size, vector_snapshot: "rebuilt" };
  } finally {
    copy.close();
  }
}
