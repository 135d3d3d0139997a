/**
 * SQLite's result code names by number, so a driver that reports only the
 * number (node:sqlite's `errcode`) gives the store the same `code` string
 * better-sqlite3 does (SQLITE_FULL, SQLITE_IOERR_WRITE): the store's fault
 * classes (store-fault.ts) and open refusals read those names.
 */
const PRIMARY: Readonly<Record<number, string>> = {
  1: "ERROR", 2: "INTERNAL", 3: "PERM", 4: "ABORT", 5: "BUSY", 6: "LOCKED", 7: "NOMEM", 8: "READONLY",
  9: "INTERRUPT", 10: "IOERR", 11: "CORRUPT", 12: "NOTFOUND", 13: "FULL", 14: "CANTOPEN", 15: "PROTOCOL",
  16: "EMPTY", 17: "SCHEMA", 18: "TOOBIG", 19: "CONSTRAINT", 20: "MISMATCH", 21: "MISUSE", 22: "NOLFS",
  23: "AUTH", 24: "FORMAT", 25: "RANGE", 26: "NOTADB", 27: "NOTICE", 28: "WARNING",
};

/** Extended codes: the primary code plus `n << 8`, by primary code, in order from n = 1. */
const EXTENDED: Readonly<Record<number, readonly string[]>> = {
  1: ["MISSING_COLLSEQ", "RETRY", "SNAPSHOT"],
  4: ["", "ROLLBACK"],
  5: ["RECOVERY", "SNAPSHOT", "TIMEOUT"],
  6: ["SHAREDCACHE", "VTAB"],
  8: ["RECOVERY", "CANTLOCK", "ROLLBACK", "DBMOVED", "CANTINIT", "DIRECTORY"],
  10: [
    "READ", "SHORT_READ", "WRITE", "FSYNC", "DIR_FSYNC", "TRUNCATE", "FSTAT", "UNLOCK", "RDLOCK", "DELETE", "BLOCKED",
    "NOMEM", "ACCESS", "CHECKRESERVEDLOCK", "LOCK", "CLOSE", "DIR_CLOSE", "SHMOPEN", "SHMSIZE", "SHMLOCK", "SHMMAP",
    "SEEK", "DELETE_NOENT", "MMAP", "GETTEMPPATH", "CONVPATH", "VNODE", "AUTH", "BEGIN_ATOMIC", "COMMIT_ATOMIC",
    "ROLLBACK_ATOMIC", "DATA", "CORRUPTFS", "IN_PAGE",
  ],
  11: ["VTAB", "SEQUENCE", "INDEX"],
  14: ["NOTEMPDIR", "ISDIR", "FULLPATH", "CONVPATH", "DIRTYWAL", "SYMLINK"],
  19: ["CHECK", "COMMITHOOK", "FOREIGNKEY", "FUNCTION", "NOTNULL", "PRIMARYKEY", "TRIGGER", "UNIQUE", "VTAB", "ROWID", "PINNED", "DATATYPE"],
  27: ["RECOVER_WAL", "RECOVER_ROLLBACK"],
  28: ["AUTOINDEX"],
};

/** `SQLITE_<NAME>` for a (possibly extended) result code; the primary name when the extension is unknown. */
export function resultCodeName(code: number): string {
  const primary = code & 0xff;
  const base = PRIMARY[primary];
  if (base === undefined) return `SQLITE_ERROR`;
  const ext = EXTENDED[primary]?.[(code >> 8) - 1];
  return ext ? `SQLITE_${base}_${ext}` : `SQLITE_${base}`;
}
