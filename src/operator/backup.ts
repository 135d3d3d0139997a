import { randomBytes } from "node:crypto";
import { closeSync, linkSync, lstatSync, openSync, renameSync, rmSync, statSync, unlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { openSqlite, type EmbeddedStore } from "../store/embedded/index.js";

export type BackupReport = {
  file: string;
  /** Records in the copy, counted by opening it. */
  records: number;
  bytes: number;
  /** What a restore needs besides the file: nothing; the vector snapshot is rebuilt. */
  vector_snapshot: "rebuilt";
};

/** The backup target cannot be written: its messages never repeat the path, which may hold anything. */
export class BackupTargetRefused extends Error {
  override readonly name: string = "BackupTargetRefused";
}

/** The backup target exists already; a backup never overwrites a file. */
export class BackupTargetExists extends BackupTargetRefused {
  override readonly name = "BackupTargetExists";
}

export const BACKUP_TARGET_EXISTS = "the backup file already exists; a backup never overwrites a file";

const code = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? "unusable";

/** Where the copy is written before it is checked: beside the target, so the last step is a link on one filesystem. */
function partialName(file: string): string {
  return `${file}.partial-${randomBytes(4).toString("hex")}`;
}

/** Creates `name` empty, failing if anything is there; the refusal names the errno only. */
function reserve(name: string): void {
  try {
    closeSync(openSync(name, "wx"));
  } catch (err) {
    throw new BackupTargetRefused(`cannot write the backup file: its directory does not take a new file (${code(err)})`);
  }
}

/**
 * Why `file` cannot be a backup target, or undefined when it can: it exists
 * already, its directory is missing or is not a directory, or a new file
 * cannot be made there (read-only, no permission, a pseudo filesystem). The
 * last is tried by making and removing a file beside it, since a permission
 * check says yes to root on /proc. Run before the store is opened, so a
 * target that cannot be written costs nothing.
 */
export function backupTargetRefusal(file: string): BackupTargetRefused | undefined {
  try {
    lstatSync(file);
    return new BackupTargetExists(BACKUP_TARGET_EXISTS);
  } catch (err) {
    if (code(err) !== "ENOENT") return new BackupTargetRefused(`cannot write the backup file (${code(err)})`);
  }
  const dir = dirname(resolve(file));
  try {
    if (!statSync(dir).isDirectory()) return new BackupTargetRefused("cannot write the backup file: its directory is not a directory (ENOTDIR)");
  } catch (err) {
    const why = code(err) === "ENOENT" ? "its directory does not exist" : "its directory cannot be read";
    return new BackupTargetRefused(`cannot write the backup file: ${why} (${code(err)})`);
  }
  const probe = partialName(file);
  try {
    reserve(probe);
  } catch (err) {
    return err as BackupTargetRefused;
  }
  unlinkSync(probe);
  return undefined;
}

/** Puts the checked copy at `file` without ever replacing a file that appeared there meanwhile. */
function publish(partial: string, file: string): void {
  try {
    linkSync(partial, file);
  } catch (err) {
    if (code(err) === "EEXIST") throw new BackupTargetExists(BACKUP_TARGET_EXISTS);
    // A filesystem without hard links: a rename, after one more look.
    if (backupTargetRefusal(file) instanceof BackupTargetExists) throw new BackupTargetExists(BACKUP_TARGET_EXISTS);
    renameSync(partial, file);
    return;
  }
  unlinkSync(partial);
}

/**
 * A consistent copy of the store's database, taken with SQLite's online
 * backup API while a server may keep writing: the copy is one snapshot of
 * the database, every committed transaction up to some moment and none
 * after. The copy is written under a temporary name beside `file`
 * (`<file>.partial-<hex>`), opened on its own and checked, and only then
 * linked into place, so `file` appears only once it opens and holds its
 * records: a copy that fails its check is removed, and a run that is killed
 * leaves at most the partial file, never `file`, and a rerun proceeds.
 *
 * The vector index snapshot (`vectors/` beside engram.db) is not copied:
 * it is derived from the records, and a store without one rebuilds it at
 * its first start. Restoring is putting the file as `engram.db` in an
 * empty ENGRAM_DATA_DIR.
 */
export async function backupStore(store: EmbeddedStore, file: string, onProgress?: (done: number, total: number) => void): Promise<BackupReport> {
  const refused = backupTargetRefusal(file);
  if (refused !== undefined) throw refused;
  const partial = partialName(file);
  reserve(partial);
  try {
    await store.database.backup(partial, ({ totalPages, remainingPages }) => onProgress?.(totalPages - remainingPages, totalPages));
    // Read-write, so closing it leaves no -wal or -shm file beside the copy.
    const copy = openSqlite(partial, { fileMustExist: true });
    let records: number;
    try {
      const check = copy.pragma("quick_check", { simple: true });
      if (check !== "ok") throw new Error("the copy failed its integrity check; no backup file was written");
      records = (copy.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n;
    } finally {
      copy.close();
    }
    publish(partial, file);
    return { file, records, bytes: statSync(file).size, vector_snapshot: "rebuilt" };
  } finally {
    for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`]) rmSync(leftover, { force: true });
  }
}
