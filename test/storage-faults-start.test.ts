/**
 * Start refusals and damaged reads. Each case damages a real store file the
 * way an operator might meet it (pages overwritten in the middle, a file
 * that is not a database, a read-only mount, an emptied file), then starts
 * engram on it: in process through `serve`, and as the real binary, where a
 * refusal is `engram: <message>` and exit 2 on every verb. A refusal names
 * the file, the cause in plain words and the recovery, never writes to the
 * file, and the recovery it names works.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../src/store/embedded/index.js";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, describe, expect, it } from "vitest";
import { DATA_LOSS_TEXT, EXIT } from "../src/argerror/index.js";
import { noStoreLine } from "../src/operator-cli/index.js";
import { serve, StartupError } from "../src/app.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { HAS_RECORDS_MARKER } from "../src/store/embedded/open-refusal.js";
import { GATE_ON } from "../src/store/store.js";
import { ANONYMOUS } from "../src/core/index.js";
import { captureLog } from "./helpers/capture-log.js";
import { runEngram } from "./helpers/run-engram.js";
import { bindReadOnly, bindWritable, remountBind } from "./helpers/small-fs.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

const DIM = 64;
const RESTORE = "restore engram.db from a backup (and keep regular backups of the data directory for next time)";
const cleanup: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
});

/** A closed store with `n` records whose content spans several pages each. */
async function seededDir(n: number, withSnapshot = false): Promise<{ dir: string; ids: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "engram-faults-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = syntheticRecord(i, { content: `record ${i} ${"lorem ipsum dolor ".repeat(40)}` });
    const v = new Float32Array(DIM);
    v[i % DIM] = 1;
    await store.create(r, v);
    ids.push(r.id);
  }
  if (withSnapshot) await store.search({ gate: GATE_ON, subject: ANONYMOUS } as never, new Float32Array(DIM).fill(0.1), "", 4);
  await store.close();
  return { dir, ids };
}

async function startIn(dataDir: string) {
  const log = captureLog();
  return serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dataDir }, embedder: new FakeEmbedder(DIM), log });
}

async function refusalOf(dataDir: string): Promise<string> {
  const err = await startIn(dataDir).then(
    async (r) => {
      await r.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StartupError);
  return (err as Error).message;
}

/** The binary refuses with the same line and exit 2, whether it is asked to serve or to run an operator verb. */
async function expectCliRefusal(dataDir: string, message: string, migrateMessage = message): Promise<void> {
  for (const [args, want] of [[["serve", "--listen-addr", "127.0.0.1:0"], message], [["migrate"], migrateMessage]] as const) {
    const r = await runEngram(args, { ENGRAM_DATA_DIR: dataDir });
    expect({ verb: args[0], code: r.code, line: r.stderr.trim().split("\n").pop() }).toEqual({ verb: args[0], code: EXIT.usage, line: `engram: ${want}` });
  }
}

describe("a database with damaged pages in the middle", { timeout: 120_000 }, () => {
  it("is refused by an operator verb with the file, the cause and the recovery, and the file is left as it was", async () => {
    const { dir } = await seededDir(300);
    const file = join(dir, "engram.db");
    corruptMiddle(file);
    const before = readFileSync(file);
    const r = await runEngram(["migrate"], { ENGRAM_DATA_DIR: dir });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr.trim()).toMatch(
      new RegExp(`^engram: cannot open the store at ${escape(file)}: the database file is damaged \\(the integrity check found (a problem|\\d+ problems)\\); ${escape(RESTORE)}$`),
    );
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("is refused by a sweep that checks it alongside its reads, with the same line and before any write", async () => {
    const { dir } = await seededDir(300);
    const file = join(dir, "engram.db");
    // Damage a sweep never reads: it would find every record it reads intact
    // and write them all, were it not held back until the check has passed.
    corruptPageOf(file, "vectors");
    const before = readFileSync(file);
    // `migrate status` checks the file when it opens it.
    const atOpen = await runEngram(["migrate", "status"], { ENGRAM_DATA_DIR: dir });
    expect(atOpen.code).toBe(EXIT.usage);
    expect(atOpen.stderr.trim()).toMatch(new RegExp(`^engram: cannot open the store at ${escape(file)}: the database file is damaged.*; ${escape(RESTORE)}$`));
    // The revert has 300 records above v1 to write; the forward sweep has none.
    for (const args of [
      ["migrate", "revert", "--to", "1", "--apply"],
      ["migrate", "--apply"],
    ]) {
      const r = await runEngram(args, { ENGRAM_DATA_DIR: dir });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: EXIT.usage, stderr: atOpen.stderr });
      expect(readFileSync(file).equals(before)).toBe(true);
    }
  });

  it("is found by serve's background check: logged with the file, /readyz 503 for good, every read data_loss", async () => {
    const { dir, ids } = await seededDir(300);
    const file = join(dir, "engram.db");
    corruptMiddle(file);
    const log = captureLog();
    const running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dir }, embedder: new FakeEmbedder(DIM), log });
    cleanup.push(() => running.close());
    const failed = () => log.lines.filter((l) => l.includes('"msg":"integrity check of'));
    for (let i = 0; i < 1200 && failed().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(failed().map((l) => JSON.parse(l) as unknown)).toEqual([
      {
        level: "error",
        msg: expect.stringMatching(
          new RegExp(`^integrity check of ${escape(file)} failed: the database file is damaged \\(the integrity check found (a problem|\\d+ problems)\\); ${escape(RESTORE)}; until then every request answers data_loss$`),
        ),
        cause: "SQLITE_CORRUPT",
      },
    ]);
    const ready = await fetch(`${running.server.url}/readyz`);
    expect({ status: ready.status, waiting: ((await ready.json()) as { waiting: string[] }).waiting }).toEqual({ status: 503, waiting: expect.arrayContaining(["store"]) });
    const client = createClient(EngramService, createConnectTransport({ baseUrl: running.server.url, httpVersion: "1.1" }));
    for (const call of [() => client.getMemory({ id: ids[0]! }), () => client.storeMemory({ content: "x", scope: "repo:1", source: "user-said", category: "decision" })]) {
      const err = await call().catch((e: unknown) => e);
      expect({ code: (err as ConnectError).code, message: (err as ConnectError).rawMessage }).toEqual({ code: Code.DataLoss, message: DATA_LOSS_TEXT });
    }
    expect(log.text()).not.toContain("internal error");
  });

  it("answers data_loss, never internal, when a store opened without the check reads it", async () => {
    const { dir, ids } = await seededDir(300);
    corruptMiddle(join(dir, "engram.db"));
    const log = captureLog();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM, log });
    const running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dir }, embedder: new FakeEmbedder(DIM), store, log });
    cleanup.push(() => running.close());
    const client = createClient(EngramService, createConnectTransport({ baseUrl: running.server.url, httpVersion: "1.1" }));
    for (const call of [() => client.listMemories({ scope: "repo:1", limit: 10n }), () => client.getMemory({ id: ids[150]! })]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectError);
      expect({ code: (err as ConnectError).code, message: (err as ConnectError).rawMessage }).toEqual({ code: Code.DataLoss, message: DATA_LOSS_TEXT });
    }
    const cli = await runEngram(["list", "--scope", "repo:1"], { ENGRAM_SERVER_URL: running.server.url });
    expect({ code: cli.code, stderr: cli.stderr.trim() }).toEqual({ code: EXIT.unclassified, stderr: DATA_LOSS_TEXT });
    const damaged = log.lines.filter((l) => l.includes('"msg":"stored data is damaged'));
    expect(damaged).toHaveLength(1);
    expect(JSON.parse(damaged[0]!)).toEqual({
      level: "error",
      msg: "stored data is damaged: reads of it answer data_loss; restore engram.db from a backup",
      cause: expect.stringMatching(/^SQLITE_CORRUPT/),
    });
    expect(log.text()).not.toContain("internal error");
    const ready = await fetch(`${running.server.url}/readyz`);
    expect(ready.status).toBe(503);
  });

  it("starts again with every record once engram.db is restored from a backup", async () => {
    const { dir, ids } = await seededDir(300);
    const file = join(dir, "engram.db");
    const backup = join(dir, "backup.db");
    copyFileSync(file, backup);
    corruptMiddle(file);
    expect(() => EmbeddedStore.open({ dataDir: dir, dim: DIM, integrityCheck: true })).toThrow(/the database file is damaged/);
    copyFileSync(backup, file);
    const running = await startIn(dir);
    try {
      let ready = 0;
      for (let i = 0; i < 1200 && ready !== 200; i++) {
        ready = (await fetch(`${running.server.url}/readyz`)).status;
        if (ready !== 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(ready).toBe(200);
      for (const id of [ids[0]!, ids[150]!, ids[299]!]) expect((await running.engram.deps.store.getRaw(id))?.id).toBe(id);
    } finally {
      await running.close();
    }
  });
});

describe("a file that is not a database", { timeout: 120_000 }, () => {
  it("is refused at start, named, with the recovery, and left untouched", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-faults-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "engram.db");
    writeFileSync(file, "these are someone's notes, not a database\n".repeat(200));
    const before = readFileSync(file);
    const message = await refusalOf(dir);
    expect(message).toBe(`cannot open the store at ${file}: the file is not an SQLite database; ${RESTORE}`);
    await expectCliRefusal(dir, message);
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe("an empty engram.db where records were", { timeout: 120_000 }, () => {
  it("is refused when the marker beside it says it held records", async () => {
    const { dir } = await seededDir(3);
    expect(existsSync(join(dir, HAS_RECORDS_MARKER))).toBe(true);
    const file = join(dir, "engram.db");
    truncateSync(file, 0);
    rmSync(join(dir, "vectors"), { recursive: true, force: true });
    const message = await refusalOf(dir);
    expect(message).toBe(`cannot open the store at ${file}: the database file is empty, but it held records before; ${RESTORE}`);
    await expectCliRefusal(dir, message);
    expect(statSync(file).size).toBe(0);
  });

  it("is refused when only the vector snapshot says it held records", async () => {
    const { dir } = await seededDir(3, true);
    expect(existsSync(join(dir, "vectors", "manifest.json"))).toBe(true);
    rmSync(join(dir, HAS_RECORDS_MARKER));
    const file = join(dir, "engram.db");
    truncateSync(file, 0);
    expect(await refusalOf(dir)).toBe(`cannot open the store at ${file}: the database file is empty, but it held records before; ${RESTORE}`);
    expect(statSync(file).size).toBe(0);
  });

  it("starts as a new store when nothing says it held records", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-faults-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "engram.db"), "");
    const running = await startIn(dir);
    await running.close();
  });

  it("starts with every record again once restored from a backup", async () => {
    const { dir, ids } = await seededDir(3);
    const file = join(dir, "engram.db");
    copyFileSync(file, join(dir, "backup.db"));
    truncateSync(file, 0);
    await refusalOf(dir);
    copyFileSync(join(dir, "backup.db"), file);
    const running = await startIn(dir);
    try {
      for (const id of ids) expect((await running.engram.deps.store.getRaw(id))?.id).toBe(id);
    } finally {
      await running.close();
    }
  });
});

const ro = (() => {
  const source = mkdtempSync(join(tmpdir(), "engram-ro-source-"));
  const bind = bindReadOnly(source);
  return { source, bind };
})();
const roSkip = "skip" in ro.bind ? ro.bind.skip : undefined;
if (roSkip) console.warn(`storage-faults-start: read-only cases skipped: ${roSkip}`);
// The file-level afterAll runs even when a filter selects none of these tests.
cleanup.push(() => {
  if (!("skip" in ro.bind)) ro.bind.unmount();
  rmSync(ro.source, { recursive: true, force: true });
});

describe.skipIf(roSkip !== undefined)("a read-only file system", { timeout: 120_000 }, () => {
  const bind = ro.bind as { dir: string; unmount(): void };

  it("refuses a store on it, naming the file and saying the file system is read-only", async () => {
    const seeded = await seededDir(5);
    const data = join(ro.source, "data");
    mkdirSync(data);
    copyFileSync(join(seeded.dir, "engram.db"), join(data, "engram.db"));
    const file = join(bind.dir, "data", "engram.db");
    const message = await refusalOf(join(bind.dir, "data"));
    expect(message).toBe(`cannot open the store at ${file}: the file system is read-only; mount it read-write, or point ENGRAM_DATA_DIR at a writable directory`);
    await expectCliRefusal(join(bind.dir, "data"), message);
    // The same file, writable again (the source of the bind), starts with its records.
    const running = await startIn(data);
    try {
      for (const id of seeded.ids) expect((await running.engram.deps.store.getRaw(id))?.id).toBe(id);
    } finally {
      await running.close();
    }
  });

  it("says a missing data directory under it cannot be created because it is read-only, not ENOENT", async () => {
    const dataDir = join(bind.dir, "missing", "data");
    const message = await refusalOf(dataDir);
    expect(message).toBe(
      `cannot open the store at ${join(dataDir, "engram.db")}: the data directory cannot be created: the file system is read-only; mount it read-write, or point ENGRAM_DATA_DIR at a writable directory`,
    );
    // An operator verb never makes a store, so it stops earlier: there is none to open.
    await expectCliRefusal(dataDir, message, noStoreLine({ ENGRAM_DATA_DIR: dataDir }));
  });
});

describe("a store whose file system turns read-only while it serves", { timeout: 120_000 }, () => {
  it("answers writes with store_cannot_write, keeps reads, and recovers when it is read-write again", async (ctx) => {
    const source = mkdtempSync(join(tmpdir(), "engram-rw-source-"));
    cleanup.push(() => rmSync(source, { recursive: true, force: true }));
    const bind = bindWritable(source);
    if ("skip" in bind) return ctx.skip(bind.skip);
    cleanup.push(() => bind.unmount());
    const log = captureLog();
    const store = EmbeddedStore.open({ dataDir: bind.dir, dim: DIM, log, writeProbeMs: 50 });
    const running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: bind.dir }, embedder: new FakeEmbedder(DIM), store, log });
    cleanup.push(() => running.close());
    const client = createClient(EngramService, createConnectTransport({ baseUrl: running.server.url, httpVersion: "1.1" }));
    const write = (content: string) => client.storeMemory({ content, scope: "repo:ro", source: "user-said", category: "decision" });
    const kept = await write("written while read-write");
    const refusedBy = remountBind(bind.dir, true);
    // Linux refuses to make a mount read-only while a file on it is open for
    // writing (SQLite holds engram.db and its WAL so): "mount point is busy".
    // Then this case cannot be staged here; the mapping of SQLITE_READONLY
    // and EROFS to store_cannot_write is proven in store-fault.test.ts.
    if (refusedBy !== undefined) return ctx.skip(`cannot remount read-only while the store holds its file open: ${refusedBy}`);
    const err = await write("written while read-only").catch((e: unknown) => e);
    expect((err as ConnectError).code).toBe(Code.Unavailable);
    expect((await client.getMemory({ id: kept.id })).memory?.content).toBe("written while read-write");
    expect(remountBind(bind.dir, false)).toBeUndefined();
    let status = 0;
    for (let i = 0; i < 600 && status !== 200; i++) {
      status = (await fetch(`${running.server.url}/readyz`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
    await write("written once read-write again");
  });
});

describe("a file the server may not open", () => {
  const root = process.getuid?.() === 0;
  if (root) console.warn("storage-faults-start: permission case skipped: running as root, which bypasses file modes");
  it.skipIf(root)("is refused with permission denied", async () => {
    const { dir } = await seededDir(2);
    const file = join(dir, "engram.db");
    const { chmodSync } = await import("node:fs");
    chmodSync(file, 0o000);
    expect(await refusalOf(dir)).toBe(
      `cannot open the store at ${file}: permission denied; give the server's user read and write access to it, or point ENGRAM_DATA_DIR at a directory it owns`,
    );
  });
});

/** Overwrites the pages between 30% and 70% of the file with a byte no page may start with. */
/** Overwrites one leaf page of `table` with junk, found through SQLite's dbstat table. */
function corruptPageOf(file: string, table: string): void {
  const db = openSqlite(file, { readonly: true });
  const page = db.prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' LIMIT 1 OFFSET 5").pluck().get(table) as number;
  db.close();
  const fd = openSync(file, "r+");
  try {
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (page - 1) * 4096);
  } finally {
    closeSync(fd);
  }
}

function corruptMiddle(file: string): void {
  const size = statSync(file).size;
  const page = 4096;
  const pages = Math.floor(size / page);
  expect(pages).toBeGreaterThan(20);
  const fd = openSync(file, "r+");
  try {
    const junk = Buffer.alloc(page, 0xa5);
    for (let p = Math.floor(pages * 0.3); p < Math.floor(pages * 0.7); p++) writeSync(fd, junk, 0, page, p * page);
  } finally {
    closeSync(fd);
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
