import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { faultCause } from "../store-fault.js";

/**
 * A store that cannot be opened as it is. The message names the file, the
 * cause in plain words and what the operator can do; it is the operator's
 * own path, never a caller's value. Lanes turn it into a start refusal
 * (`engram: <message>`, exit 2 on every verb).
 */
export class StoreOpenError extends Error {
  override readonly name = "StoreOpenError";
  constructor(
    readonly file: string,
    readonly cause_: string,
    readonly recovery: string,
  ) {
    super(`cannot open the store at ${file}: ${cause_}; ${recovery}`);
  }
}

const RESTORE = "restore engram.db from a backup (and keep regular backups of the data directory for next time)";
const READ_ONLY = "the file system is read-only";
const REMOUNT = "mount it read-write, or point ENGRAM_DATA_DIR at a writable directory";
const DENIED = "permission denied";
const GRANT = "give the server's user read and write access to it, or point ENGRAM_DATA_DIR at a directory it owns";

/** Beside engram.db: says the database held records once, so an empty file later is a loss, not a fresh start. */
export const HAS_RECORDS_MARKER = "engram.db.has-records";

/** Creates the data directory, or says why it cannot be (the first existing ancestor is read-only, not ours, not a directory). */
export function prepareDataDir(dir: string, file: string): void {
  try {
    if (existsSync(dir) && statSync(dir).isDirectory()) return;
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    // mkdir -p under a read-only parent says ENOENT; the parent tells the real story.
    const cause = ancestorCause(dir) ?? plainCause(err);
    throw new StoreOpenError(file, `the data directory cannot be created: ${cause}`, cause === READ_ONLY ? REMOUNT : GRANT);
  }
}

/** The cause seen on the nearest directory that exists above `dir`: what stops `mkdir -p`. */
function ancestorCause(dir: string): string | undefined {
  let at = resolve(dir);
  while (!existsSync(at)) {
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
  if (!statSync(at).isDirectory()) return `${at} is not a directory`;
  try {
    accessSync(at, constants.W_OK);
    return undefined;
  } catch (err) {
    return plainCause(err);
  }
}

/**
 * Refuses a zero-length engram.db when something beside it says the
 * database held records: our marker, or a vector snapshot with entries. A
 * zero-length file cannot carry its own meta table, so the evidence has to
 * live next to it. Started as empty, it would silently lose everything.
 */
export function refuseEmptyWithRecords(file: string, snapshotDir: string): void {
  if (!existsSync(file) || statSync(file).size > 0) return;
  if (existsSync(join(dirname(file), HAS_RECORDS_MARKER)) || snapshotHasRecords(snapshotDir)) {
    throw new StoreOpenError(file, "the database file is empty, but it held records before", RESTORE);
  }
}

function snapshotHasRecords(dir: string): boolean {
  try {
    // Only two fields of the vector index's manifest: how many entries, and the change-log position.
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { live?: unknown; origin?: { seq?: unknown } };
    return (typeof m.live === "number" && m.live > 0) || (typeof m.origin?.seq === "number" && m.origin.seq > 0);
  } catch {
    return false;
  }
}

/** Best effort, true once the marker exists: a data directory we cannot write into fails louder elsewhere. */
export function markHasRecords(file: string): boolean {
  const marker = join(dirname(file), HAS_RECORDS_MARKER);
  if (existsSync(marker)) return true;
  try {
    writeFileSync(marker, "engram.db has held records; an empty engram.db here is refused at start\n");
    return true;
  } catch {
    // A full or read-only disk: tried again at the next write; the snapshot check still stands.
    return false;
  }
}

/** The refusal for an error thrown while opening, configuring or checking the file. */
export function openRefusal(file: string, err: unknown): StoreOpenError {
  const cause = faultCause(err) ?? "";
  if (cause.startsWith("SQLITE_NOTADB")) return new StoreOpenError(file, "the file is not an SQLite database", RESTORE);
  if (cause.startsWith("SQLITE_CORRUPT")) return new StoreOpenError(file, "the database file is damaged", RESTORE);
  // SQLite reports a read-only mount as "unable to open" or "readonly": ask the file system what is wrong.
  const fsCause = fileCause(file);
  if (fsCause === READ_ONLY) return new StoreOpenError(file, READ_ONLY, REMOUNT);
  if (fsCause === DENIED) return new StoreOpenError(file, DENIED, GRANT);
  if (cause.startsWith("SQLITE_READONLY")) return new StoreOpenError(file, "the file cannot be written", GRANT);
  if (cause.startsWith("SQLITE_FULL") || cause === "ENOSPC") return new StoreOpenError(file, "the disk is full", "free some space and start again");
  return new StoreOpenError(file, `it cannot be opened (${cause || (err instanceof Error ? err.name : "unknown error")})`, "check the file and its directory");
}

/** The refusal when the integrity check finds problems. */
export function damagedRefusal(file: string, problems: number): StoreOpenError {
  return new StoreOpenError(file, `the database file is damaged (the integrity check found ${problems === 1 ? "a problem" : `${problems} problems`})`, RESTORE);
}

function fileCause(file: string): string | undefined {
  for (const [path, mode] of [
    [dirname(file), constants.W_OK],
    [file, constants.R_OK | constants.W_OK],
  ] as const) {
    if (!existsSync(path)) continue;
    try {
      accessSync(path, mode);
    } catch (err) {
      return plainCause(err);
    }
  }
  return undefined;
}

function plainCause(err: unknown): string {
  const code = faultCause(err);
  if (code === "EROFS") return READ_ONLY;
  if (code === "EACCES" || code === "EPERM") return DENIED;
  if (code === "ENOTDIR") return "a part of the path is not a directory";
  if (code === "ENOSPC") return "the disk is full";
  return code ?? "unknown error";
}
