import { createRequire } from "node:module";
import { loadFailureReason, ModuleLoadError, REINSTALL } from "../../../model/module-load-error.js";
import { openBetterSqlite3, type BetterSqlite3Module } from "./better-sqlite3-driver.js";
import { openNodeSqlite, type NodeSqliteModule } from "./node-sqlite-driver.js";
import type { SqliteDatabase, SqliteOpenOptions } from "./sqlite-types.js";

/**
 * Which SQLite library the embedded store runs on. Node's built-in
 * node:sqlite where the runtime has all the store needs (22.16 and later:
 * user functions, online backup, rows as arrays), so nothing is compiled or
 * run at install; better-sqlite3 on older runtimes (Node 20), an optional
 * dependency npm builds there. ENGRAM_SQLITE_DRIVER names one to use
 * instead (the bench compares the two on one runtime).
 */
export const SQLITE_DRIVERS = ["node:sqlite", "better-sqlite3"] as const;
export type SqliteDriverName = (typeof SQLITE_DRIVERS)[number];
export const SQLITE_DRIVER_SETTING = "ENGRAM_SQLITE_DRIVER";

type Driver = { readonly name: SqliteDriverName; open(file: string, opts: SqliteOpenOptions): SqliteDatabase; readonly workerSource: WorkerDriver };

/** What a worker thread needs to open the same library on its own (see workerOpenSource). */
export type WorkerDriver = { readonly name: SqliteDriverName; readonly path?: string };

const require = createRequire(import.meta.url);
let chosen: Driver | undefined;

/** The driver this process uses, chosen once. Throws ModuleLoadError when none can be loaded. */
export function sqliteDriver(): Driver {
  return (chosen ??= choose(process.env[SQLITE_DRIVER_SETTING]?.trim() || undefined));
}

export function openSqlite(file: string, opts: SqliteOpenOptions = {}): SqliteDatabase {
  return sqliteDriver().open(file, opts);
}

function choose(asked: string | undefined): Driver {
  if (asked === undefined) return nodeSqlite() ?? betterSqlite3(true);
  if (asked === "node:sqlite") {
    const driver = nodeSqlite();
    if (!driver) throw new ModuleLoadError("node:sqlite", `Node.js ${process.version} lacks it or part of what engram uses`, "run on Node.js 22.16 or later, or unset ENGRAM_SQLITE_DRIVER");
    return driver;
  }
  if (asked === "better-sqlite3") return betterSqlite3(false);
  throw new ModuleLoadError("SQLite driver", `${SQLITE_DRIVER_SETTING} must be one of ${SQLITE_DRIVERS.join(", ")}`, "fix the setting or unset it");
}

/** node:sqlite when this runtime has every part the store calls; undefined otherwise (Node 20 has none of it). */
function nodeSqlite(): Driver | undefined {
  let mod: NodeSqliteModule & { StatementSync?: { prototype: object }; DatabaseSync: { prototype: object } };
  try {
    mod = quietly(() => require("node:sqlite"));
  } catch {
    return undefined;
  }
  const complete =
    typeof mod.backup === "function" &&
    typeof (mod.DatabaseSync.prototype as { function?: unknown }).function === "function" &&
    typeof (mod.StatementSync?.prototype as { setReturnArrays?: unknown } | undefined)?.setReturnArrays === "function";
  if (!complete) return undefined;
  return { name: "node:sqlite", open: (file, opts) => openNodeSqlite(mod, file, opts), workerSource: { name: "node:sqlite" } };
}

function betterSqlite3(fallback: boolean): Driver {
  const remedy = fallback ? `${REINSTALL}; on Node.js 22.16 or later engram uses the built-in node:sqlite and needs no build` : REINSTALL;
  let Database: BetterSqlite3Module;
  let path: string;
  try {
    path = require.resolve("better-sqlite3");
    Database = require(path) as BetterSqlite3Module;
    // The native binding loads at the first connection: open one now, so a missing build is named here.
    new Database(":memory:").close();
  } catch (err) {
    throw new ModuleLoadError("better-sqlite3", loadFailureReason(err), remedy);
  }
  return { name: "better-sqlite3", open: (file, opts) => openBetterSqlite3(Database, file, opts), workerSource: { name: "better-sqlite3", path } };
}

/**
 * Node 22 warns that node:sqlite is experimental on its first load; the
 * warning says nothing an operator can act on, so that one is not printed.
 */
function quietly<T>(load: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emit;
  }
}

/**
 * CommonJS source defining `openDb(file, readonly)` for a worker thread
 * started from code (`eval: true`), which cannot import the store's
 * modules: the same library as this process, opened the same way. Its
 * errors carry `code` as the main thread's do (see workerErrorCode).
 */
export function workerOpenSource(): { code: string; driver: WorkerDriver } {
  const driver = sqliteDriver().workerSource;
  const code = `
    const openDb = (file, readonly) => {
      if (workerData.driver.name === "node:sqlite") {
        const { DatabaseSync } = require("node:sqlite");
        return new DatabaseSync(file, { readOnly: readonly });
      }
      const Database = require(workerData.driver.path);
      return new Database(file, { readonly, fileMustExist: true });
    };
    const errorCode = (err) => (err && (err.errcode !== undefined ? err.errcode : err.code || err.name)) || "unknown";`;
  return { code, driver };
}
