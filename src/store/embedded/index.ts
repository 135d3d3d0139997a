/** The embedded backend (the default): one SQLite file under the data directory, with an in-process vector index. */
export { EmbeddedStore, SWEEP_WORKER_FROM, type EmbeddedStoreOptions } from "./embedded-store.js";
export { StoreOpenError } from "./open-refusal.js";
export { openSqlite, sqliteDriver, SQLITE_DRIVER_SETTING, type SqliteDatabase } from "./sqlite/index.js";
