/**
 * The store's SQLite adapter behaves the same over every driver this
 * runtime can load (node:sqlite from Node 22.16, better-sqlite3 where it is
 * built): the store's code was written against better-sqlite3's behaviour,
 * and these are the parts of it the store leans on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openBetterSqlite3, type BetterSqlite3Module } from "../src/store/embedded/sqlite/better-sqlite3-driver.js";
import { openNodeSqlite, type NodeSqliteModule } from "../src/store/embedded/sqlite/node-sqlite-driver.js";
import { resultCodeName, type SqliteDatabase, type SqliteOpenOptions } from "../src/store/embedded/sqlite/index.js";

const require = createRequire(import.meta.url);
const dir = mkdtempSync(join(tmpdir(), "engram-sqlite-driver-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loadable<T>(load: () => T): T | undefined {
  try {
    return load();
  } catch {
    return undefined;
  }
}

const nodeSqlite = loadable(() => {
  const mod = require("node:sqlite") as NodeSqliteModule & { StatementSync: { prototype: { setReturnArrays?: unknown } } };
  return typeof mod.backup === "function" && typeof mod.StatementSync.prototype.setReturnArrays === "function" ? mod : undefined;
});
const betterSqlite3 = loadable(() => {
  const D = require("better-sqlite3") as BetterSqlite3Module;
  new D(":memory:").close();
  return D;
});

const DRIVERS: [string, ((file: string, opts?: SqliteOpenOptions) => SqliteDatabase) | undefined][] = [
  ["node:sqlite", nodeSqlite && ((file, opts = {}) => openNodeSqlite(nodeSqlite, file, opts))],
  ["better-sqlite3", betterSqlite3 && ((file, opts = {}) => openBetterSqlite3(betterSqlite3, file, opts))],
];

describe.each(DRIVERS)("the SQLite adapter over %s", (name, open) => {
  it.skipIf(open === undefined)("binds an array argument element by element and reads rows as objects, arrays or first values", () => {
    const db = open!(":memory:");
    db.exec("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)");
    db.prepare("INSERT INTO t VALUES (?, ?)").run([1, "one"]);
    db.prepare("INSERT INTO t VALUES (@a, @b)").run({ a: 2, b: "two" });
    expect(db.prepare("SELECT a, b FROM t ORDER BY a").all()).toEqual([{ a: 1, b: "one" }, { a: 2, b: "two" }]);
    expect(db.prepare("SELECT a, b FROM t ORDER BY a").raw(true).all()).toEqual([[1, "one"], [2, "two"]]);
    expect(db.prepare("SELECT b FROM t WHERE a = ?").pluck().get(2)).toBe("two");
    expect(db.pragma("user_version", { simple: true })).toBe(0);
    db.close();
    expect(db.open).toBe(false);
  });

  it.skipIf(open === undefined)("rolls back a failed inner transaction to its savepoint and keeps the outer one's writes", () => {
    const db = open!(":memory:");
    db.exec("CREATE TABLE t (a)");
    const ins = db.prepare("INSERT INTO t VALUES (?)");
    db.transaction(() => {
      ins.run(1);
      expect(() => db.transaction(() => (ins.run(2), ThrowNow()))()).toThrow("inner");
    }).immediate();
    expect(() => db.transaction(() => (ins.run(3), ThrowNow()))()).toThrow("inner");
    expect(db.prepare("SELECT a FROM t").pluck().all()).toEqual([1]);
    expect(db.inTransaction).toBe(false);
    db.close();
  });

  it.skipIf(open === undefined)("lets a loop over rows stop early without holding the statement", () => {
    const db = open!(":memory:");
    db.exec("CREATE TABLE t (a); INSERT INTO t VALUES (1), (2), (3);");
    const st = db.prepare("SELECT a FROM t ORDER BY a").pluck();
    for (const v of st.iterate()) if (v === 1) break;
    expect([...st.iterate()]).toEqual([1, 2, 3]);
    db.close();
  });

  it.skipIf(open === undefined)("names a failure by SQLite's result code, as the store's fault classes read it", () => {
    const db = open!(":memory:");
    db.exec("CREATE TABLE t (a PRIMARY KEY)");
    db.prepare("INSERT INTO t VALUES (1)").run();
    expect(() => db.prepare("INSERT INTO t VALUES (1)").run()).toThrow(expect.objectContaining({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" }));
    expect(() => open!(join(dir, "missing.db"), { readonly: true, fileMustExist: true })).toThrow(expect.objectContaining({ code: "SQLITE_CANTOPEN" }));
    db.close();
  });

  it.skipIf(open === undefined)("calls a JavaScript function from SQL and copies the database online, reporting the finished copy", async () => {
    const db = open!(join(dir, `${name.replace(":", "-")}.db`));
    db.function("twice", (v) => `${String(v)}${String(v)}`);
    db.exec("CREATE TABLE t (a BLOB, b)");
    db.prepare("INSERT INTO t VALUES (?, twice('ab'))").run(Buffer.from([1, 2, 3]));
    const seen: number[] = [];
    const copy = join(dir, `${name.replace(":", "-")}-copy.db`);
    await db.backup(copy, (p) => seen.push(p.remainingPages));
    expect(seen.at(-1)).toBe(0);
    const back = open!(copy, { fileMustExist: true });
    const row = back.prepare("SELECT a, b FROM t").get() as { a: Uint8Array; b: string };
    expect([...row.a]).toEqual([1, 2, 3]);
    expect(row.b).toBe("abab");
    back.close();
    db.close();
  });
});

describe("SQLite result code names", () => {
  it("names extended codes as better-sqlite3 does, and falls back to the primary name", () => {
    expect([resultCodeName(13), resultCodeName(778), resultCodeName(2067), resultCodeName(11 | (99 << 8))]).toEqual(["SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CORRUPT"]);
  });
});

function ThrowNow(): never {
  throw new Error("inner");
}
