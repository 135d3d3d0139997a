export type { SqliteDatabase, SqliteStatement, SqliteTransaction, SqliteValue, SqliteRunResult, SqliteOpenOptions, BackupProgress } from "./sqlite-types.js";
export { openSqlite, sqliteDriver, workerOpenSource, SQLITE_DRIVERS, SQLITE_DRIVER_SETTING, type SqliteDriverName } from "./driver.js";
export { resultCodeName } from "./result-codes.js";
