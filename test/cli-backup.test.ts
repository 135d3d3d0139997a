/**
 * `engram backup <file>`: the target is checked before the store is opened
 * (exit 2, a line that names the errno and never the path), and the copy is
 * written under a temporary name and only put at <file> once it passed its
 * check, so a failed or killed run leaves no <file> that the next run would
 * refuse as existing.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../src/store/embedded/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { backupStore } from "../src/operator/backup.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { runEngram } from "./helpers/run-engram.js";

const SECRET = "s3cr3t-path-part";

describe("engram backup", { timeout: 120_000 }, () => {
  let tmp: string;
  let dataDir: string;
  const fresh = (name: string) => {
    const d = join(tmp, name);
    mkdirSync(d);
    return d;
  };

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "engram-backup-"));
    dataDir = fresh("data");
    const store = EmbeddedStore.open({ dataDir, dim: 512 });
    await store.close();
  });

  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("refuses a target whose directory does not exist, exit 2, before it opens the store and without the path", async () => {
    const target = join(tmp, `missing-${SECRET}`, "copy.db");
    const run = await runEngram(["backup", target, "--output", "json"], { ENGRAM_DATA_DIR: dataDir });
    expect(run).toEqual({ code: EXIT.usage, stdout: "", stderr: "engram: cannot write the backup file: its directory does not exist (ENOENT)\n" });
    // Before the store is opened: a data directory with no store gets the target's refusal, not the store's, and stays empty.
    const empty = fresh("no-store");
    const first = await runEngram(["backup", target], { ENGRAM_DATA_DIR: empty });
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: EXIT.usage, stderr: run.stderr });
    expect(readdirSync(empty)).toEqual([]);
  });

  it("refuses a target that exists, exit 2, before it opens the store", async () => {
    const box = fresh("exists");
    const target = join(box, `copy-${SECRET}.db`);
    writeFileSync(target, "mine");
    const run = await runEngram(["backup", target], { ENGRAM_DATA_DIR: fresh("no-store-2") });
    expect(run).toEqual({ code: EXIT.usage, stdout: "", stderr: "engram: the backup file already exists; a backup never overwrites a file\n" });
    expect(readdirSync(box)).toEqual([`copy-${SECRET}.db`]);
  });

  it.skipIf(!existsSync("/proc/self"))("refuses a directory that does not take a new file (/proc), exit 2, naming the errno only", async () => {
    const run = await runEngram(["backup", `/proc/${SECRET}.db`], { ENGRAM_DATA_DIR: dataDir });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/^engram: cannot write the backup file: its directory does not take a new file \([A-Z]+\)\n$/);
    expect(run.stdout).toBe("");
  });

  it("refuses a target below a regular file, exit 2", async () => {
    const file = join(fresh("below-file"), "plain");
    writeFileSync(file, "");
    const run = await runEngram(["backup", join(file, `${SECRET}.db`)], { ENGRAM_DATA_DIR: dataDir });
    expect(run).toEqual({ code: EXIT.usage, stdout: "", stderr: "engram: cannot write the backup file (ENOTDIR)\n" });
  });

  it("writes the target only once the copy passed its check: leftovers of a killed run do not stop the next one", async () => {
    const box = fresh("killed");
    const target = join(box, "copy.db");
    // What a run killed mid-copy leaves: its partial file, never the target.
    writeFileSync(`${target}.partial-0badc0de`, "half a copy");
    const run = await runEngram(["backup", target, "--output", "json"], { ENGRAM_DATA_DIR: dataDir });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(run.stdout)).toMatchObject({ file: target, records: 0, vector_snapshot: "rebuilt" });
    // One self-contained file: no -wal or -shm beside it, and nothing of its own run left over.
    expect(readdirSync(box).sort()).toEqual(["copy.db", "copy.db.partial-0badc0de"]);
  });

  it("does not create the target while the copy is being taken", async () => {
    const target = join(fresh("during"), "copy.db");
    const store = EmbeddedStore.open({ dataDir, dim: 512 });
    const seen: boolean[] = [];
    try {
      await backupStore(store, target, () => seen.push(existsSync(target)));
    } finally {
      await store.close();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((there) => !there)).toBe(true);
    expect(existsSync(target)).toBe(true);
  });

  it("removes a copy that fails its integrity check, so the next run is not refused as existing", async () => {
    const box = fresh("damaged");
    const target = join(box, "copy.db");
    // A store whose backup yields a file with a damaged page.
    const damaged = {
      database: {
        backup: async (to: string) => {
          const db = openSqlite(to);
          db.exec("CREATE TABLE records (id TEXT PRIMARY KEY, body TEXT)");
          const insert = db.prepare("INSERT INTO records VALUES (?, ?)");
          for (let i = 0; i < 200; i++) insert.run(String(i), "x".repeat(200));
          db.close();
          const { openSync, writeSync, closeSync } = await import("node:fs");
          const fd = openSync(to, "r+");
          writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, 3 * 4096);
          closeSync(fd);
        },
      },
    } as unknown as EmbeddedStore;
    await expect(backupStore(damaged, target)).rejects.toThrow("the copy failed its integrity check; no backup file was written");
    expect(readdirSync(box)).toEqual([]);

    const run = await runEngram(["backup", target, "--output", "json"], { ENGRAM_DATA_DIR: dataDir });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(readdirSync(box)).toEqual(["copy.db"]);
  });
});
