/**
 * Portable data: export → import → export round trips, re-embedding on an
 * embedder change, idempotent re-import, and a bad line that stops the
 * import at its batch. The engines run in this process; the binary's own
 * lines (a bad line 3, a backup beside a writing server) run as children.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../src/store/embedded/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { FakeEmbedder, identityKey } from "../src/embed/index.js";
import { LOCAL_IDENTITY } from "../src/embed/local-embedder.js";
import { exportRecords, importRecords, ImportStopped, headerLine, recordLine } from "../src/operator/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { META_EMBEDDER_IDENTITY } from "../src/store/meta-keys.js";
import type { MemoryRecord } from "../src/model/record.js";
import { snapshot, type TestServer } from "./helpers/engram-server.js";
import { portableFixture, TOKENS } from "./helpers/portable-fixture.js";
import { CLI_DOCS } from "./helpers/doc-pages.js";
import { runEngram } from "./helpers/run-engram.js";
import { asEmbedded } from "./helpers/test-store.js";

const dirs: string[] = [];
function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), "engram-portable-"));
  dirs.push(d);
  return d;
}

async function exportLines(store: EmbeddedStore, opts: { allOwners?: boolean; owner?: string; scope?: string; vectors?: boolean } = {}): Promise<string[]> {
  let out = "";
  await exportRecords(store, {
    allOwners: opts.allOwners ?? opts.owner === undefined,
    ...(opts.owner !== undefined ? { owner: opts.owner } : {}),
    ...(opts.scope !== undefined ? { scope: opts.scope } : {}),
    vectors: opts.vectors ?? true,
    write: async (chunk) => {
      out += chunk;
    },
  });
  return out.split("\n").slice(0, -1);
}

async function* linesOf(lines: readonly string[]): AsyncIterable<string> {
  for (const l of lines) yield l;
}

describe("export and import", { timeout: 120_000 }, () => {
  let server: TestServer;
  let ids: Record<string, string>;
  let exported: string[];

  beforeAll(async () => {
    ({ server, ids } = await portableFixture());
    exported = await exportLines(asEmbedded(server.store));
  });

  afterAll(async () => {
    await server?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("writes a header naming the embedder, then every record of both owners with its lifecycle", () => {
    expect(JSON.parse(exported[0]!)).toEqual({ format: "engram-export", version: 1, embedder: identityKey(server.embedder.identity), vectors: true });
    const records = exported.slice(1).map((l) => JSON.parse(l) as { record: MemoryRecord; vector: string });
    expect(records.map((r) => r.record.id).sort()).toEqual(Object.values(ids).sort());
    const byId = new Map(records.map((r) => [r.record.id, r.record]));
    expect(byId.get(ids.aliceArchived!)!.archived_at).toMatch(/Z$/);
    expect(byId.get(ids.aliceOld!)!.superseded_by).toBe(ids.aliceNew);
    expect(byId.get(ids.aliceNew!)!.supersedes).toEqual([ids.aliceOld]);
    expect(byId.get(ids.aliceScheduled!)!.not_before).toBeGreaterThan(Date.now() / 1000);
    expect(byId.get(ids.aliceShared!)!.visibility).toBe("shared");
    expect(byId.get(ids.bobPrivate!)!.owner).toBe("bob");
    expect(byId.get(ids.discovery!)!.citations[0]).toMatchObject({ kind: "file", ref: "src/routes.ts" });
    // Server-only keys travel too: an import must not lose what the store keeps.
    expect(byId.get(ids.rule!)!.embedder_identity).toBe(identityKey(server.embedder.identity));
    for (const r of records) expect(Buffer.from(r.vector, "base64").byteLength).toBe(64 * 4);
  });

  it("round trips: export, import into an empty store, export again gives identical lines", async () => {
    const target = EmbeddedStore.open({ dataDir: freshDir(), dim: 64 });
    const embedder = new FakeEmbedder(64);
    const report = await importRecords(target, embedder, linesOf(exported), { batch: 3 });
    expect(report).toEqual({
      imported: exported.length - 1,
      reembedded: 0,
      batches: Math.ceil((exported.length - 1) / 3),
      from_embedder: identityKey(embedder.identity),
      to_embedder: identityKey(embedder.identity),
    });
    expect(embedder.calls).toBe(0);
    expect(await exportLines(target)).toEqual(exported);
    expect(await target.getMeta(META_EMBEDDER_IDENTITY)).toBe(identityKey(embedder.identity));
    // The short id still resolves to the same record on the target.
    const rec = JSON.parse(exported[1]!).record as MemoryRecord;
    expect(await target.resolve(rec.short_id)).toEqual({ kind: "id", id: rec.id });
    await target.close();
  });

  it("importing the same file twice leaves the store as one import did", async () => {
    const target = EmbeddedStore.open({ dataDir: freshDir(), dim: 64 });
    await importRecords(target, new FakeEmbedder(64), linesOf(exported), { batch: 100 });
    const once = await snapshot(target);
    await importRecords(target, new FakeEmbedder(64), linesOf(exported), { batch: 7 });
    expect(await snapshot(target)).toBe(once);
    await target.close();
  });

  it("re-embeds every record when the target's embedder differs, keeping every other field", async () => {
    const target = EmbeddedStore.open({ dataDir: freshDir(), dim: 32 });
    const other = new FakeEmbedder(32, "another-model");
    const report = await importRecords(target, other, linesOf(exported), { batch: 5 });
    expect(report.reembedded).toBe(exported.length - 1);
    expect(other.texts).toBe(exported.length - 1);
    const again = await exportLines(target);
    expect(JSON.parse(again[0]!).embedder).toBe(identityKey(other.identity));
    const strip = (l: string) => {
      const { embedder_identity: _e, ...rest } = (JSON.parse(l) as { record: MemoryRecord }).record;
      return rest;
    };
    expect(again.slice(1).map(strip)).toEqual(exported.slice(1).map(strip));
    for (const l of again.slice(1)) {
      const doc = JSON.parse(l) as { record: MemoryRecord; vector: string };
      expect(doc.record.embedder_identity).toBe(identityKey(other.identity));
      expect(Buffer.from(doc.vector, "base64").byteLength).toBe(32 * 4);
    }
    await target.close();
  });

  it("an export without vectors re-embeds on import even for the same embedder", async () => {
    const lines = await exportLines(asEmbedded(server.store), { vectors: false });
    expect(JSON.parse(lines[0]!).vectors).toBe(false);
    expect(lines.slice(1).every((l) => !("vector" in JSON.parse(l)))).toBe(true);
    const target = EmbeddedStore.open({ dataDir: freshDir(), dim: 64 });
    const embedder = new FakeEmbedder(64);
    expect((await importRecords(target, embedder, linesOf(lines), { batch: 50 })).reembedded).toBe(lines.length - 1);
    // FakeEmbedder is deterministic: the same text gives the same vector, so the full export matches.
    expect(await exportLines(target)).toEqual(exported);
    await target.close();
  });

  it("filters by owner and by scope", async () => {
    const bob = await exportLines(asEmbedded(server.store), { owner: "bob" });
    expect(bob.slice(1).map((l) => JSON.parse(l).record.id).sort()).toEqual([ids.bobPrivate, ids.bobShared, ids.discovery].sort());
    const scoped = await exportLines(asEmbedded(server.store), { scope: "repo:b" });
    expect(scoped.slice(1).map((l) => JSON.parse(l).record.id)).toEqual([ids.bobShared]);
    expect(await exportLines(asEmbedded(server.store), { owner: "nobody" })).toEqual([exported[0]]);
  });

  it("a bad line 3 stops the import at its batch: the store stays as it was before that batch", async () => {
    const target = EmbeddedStore.open({ dataDir: freshDir(), dim: 64 });
    // The target already holds the record of line 2, as an earlier import left it.
    await importRecords(target, new FakeEmbedder(64), linesOf([exported[0]!, exported[1]!]), { batch: 10 });
    const before = await snapshot(target);
    const changed = JSON.parse(exported[1]!) as { record: MemoryRecord; vector: string };
    changed.record.content = "rewritten by the file";
    const file = [exported[0]!, recordLine(changed.record, Buffer.from(changed.vector, "base64")), "{not json", exported[2]!];
    const err = await importRecords(target, new FakeEmbedder(64), linesOf(file), { batch: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportStopped);
    expect((err as ImportStopped).message).toBe("line 3: not valid JSON");
    expect((err as ImportStopped).report.imported).toBe(0);
    expect(await snapshot(target)).toBe(before);

    // With one record per batch, the batch before the bad line is committed and nothing after it.
    const err1 = (await importRecords(target, new FakeEmbedder(64), linesOf(file), { batch: 1 }).catch((e: unknown) => e)) as ImportStopped;
    expect(err1.message).toBe("line 3: not valid JSON");
    expect(err1.report.imported).toBe(1);
    expect((await target.getRaw(changed.record.id))!.content).toBe("rewritten by the file");
    expect(await target.getRaw((JSON.parse(exported[2]!) as { record: MemoryRecord }).record.id)).toBeUndefined();
    await target.close();
  });

  it("refuses to import into a store that another embedder serves, writing nothing", async () => {
    const target = EmbeddedStore.open({ dataDir: freshDir(), dim: 64 });
    await target.setMeta(META_EMBEDDER_IDENTITY, "local:someone-else:64");
    await expect(importRecords(target, new FakeEmbedder(64), linesOf(exported), { batch: 10 })).rejects.toThrow(/engram reindex/);
    expect(await snapshot(target)).toBe("[]");
    await target.close();
  });
});

describe("the import, export and backup verbs", { timeout: 180_000 }, () => {
  const local = identityKey(LOCAL_IDENTITY);
  const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const record = (n: number): MemoryRecord => ({
    id: uuid(n),
    short_id: `SHORT${String(n).padStart(5, "0")}`,
    content: `record ${n}`,
    content_bytes: 8,
    scope: "repo:cli",
    repo: "",
    workspace: "",
    worktree_path: "",
    base_dir: "",
    source: "user-said",
    category: "decision",
    tags: [],
    actor: "",
    owner: "",
    visibility: "",
    created_at: `2024-01-0${n}T00:00:00.000Z`,
    summary: "",
    summary_source: "",
    summary_model: "",
    access_count: 0,
    kind: "",
    citations: [],
    supersedes: [],
    schema_version: 2,
    embedder_identity: local,
  });
  const vector = () => Buffer.from(new Float32Array(LOCAL_IDENTITY.dim).fill(0.05).buffer);

  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("engram import reports a bad line 3 by its number, exit 2, and keeps only the batch before it", async () => {
    const dataDir = freshDir();
    const file = join(freshDir(), "bad.jsonl");
    writeFileSync(file, [headerLine({ embedder: local, vectors: true }), recordLine(record(1), vector()), '{"record": "secret value"', recordLine(record(3), vector())].join("\n") + "\n");
    const r = await runEngram(["import", file, "--batch-size", "1", "--output", "json"], { ENGRAM_DATA_DIR: dataDir });
    expect(r.stderr).toBe("engram: line 3: not valid JSON; nothing from its batch on was written (1 record(s) imported before it)\n");
    expect(r.stderr).not.toContain("secret");
    expect(r.code).toBe(EXIT.usage);
    expect(r.stdout).toBe("");
    const db = openSqlite(join(dataDir, "engram.db"), { readonly: true });
    expect(db.prepare("SELECT id FROM records ORDER BY id").all()).toEqual([{ id: uuid(1) }]);
    db.close();
  });

  it("engram import - reads stdin and prints its report; engram export prints the same lines back", async () => {
    const dataDir = freshDir();
    const file = join(freshDir(), "good.jsonl");
    const lines = [headerLine({ embedder: local, vectors: true }), recordLine(record(1), vector()), recordLine(record(2), vector())];
    writeFileSync(file, lines.join("\n") + "\n");
    const imp = await runEngram(["import", file, "--output", "json"], { ENGRAM_DATA_DIR: dataDir });
    expect({ code: imp.code, stderr: imp.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(imp.stdout)).toEqual({ imported: 2, reembedded: 0, batches: 1, from_embedder: local, to_embedder: local });
    const viaStdin = spawnSync(process.execPath, ["bin/engram.js", "import", "-", "--output", "json"], {
      cwd: new URL("..", import.meta.url).pathname,
      input: lines.join("\n") + "\n",
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", ENGRAM_DATA_DIR: dataDir },
    });
    expect({ code: viaStdin.status, stderr: viaStdin.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    // The same file again through stdin changes nothing: ids are kept, records replaced by themselves.
    expect(JSON.parse(viaStdin.stdout)).toMatchObject({ imported: 2, reembedded: 0 });
    const exp = await runEngram(["export", "--all-owners"], { ENGRAM_DATA_DIR: dataDir });
    expect({ code: exp.code, stderr: exp.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(exp.stdout).toBe(lines.join("\n") + "\n");
    const progress = await runEngram(["export", "--owner", ""], { ENGRAM_DATA_DIR: dataDir, ENGRAM_PROGRESS: "always" });
    expect(progress.stdout).toBe(exp.stdout);
    expect(progress.stderr.split("\n")).toContain("engram: exported 2/2 (" + progress.stderr.split("exported 2/2 (")[1]!.split("\n")[0]);
  });

  it("engram export names whose records: --owner or --all-owners, not both, in the envelopes the sweeps give the same mistakes", async () => {
    const dataDir = freshDir();
    const none = await runEngram(["export"], { ENGRAM_DATA_DIR: dataDir });
    expect({ code: none.code, stderr: none.stderr, stdout: none.stdout }).toEqual({
      code: EXIT.usage,
      stderr:
        'field=owner,all-owners hint=conditional_required: export requires an explicit --owner or --all-owners: name one owner ("" is the anonymous owner), or opt into every owner\n',
      stdout: "",
    });
    const both = await runEngram(["export", "--owner", "a", "--all-owners"], { ENGRAM_DATA_DIR: dataDir });
    expect({ code: both.code, stderr: both.stderr, stdout: both.stdout }).toEqual({
      code: EXIT.usage,
      stderr: "field=owner,all-owners hint=mutually_exclusive: owner and all-owners cannot be combined; all-owners already covers every owner\n",
      stdout: "",
    });
    // The sweeps' pair reads the same way.
    const sweep = await runEngram(["spine-review", "scan", "--scope", "s", "--all-scopes"], { ENGRAM_DATA_DIR: dataDir });
    expect(sweep.stderr).toMatch(/^field=scope,all-scopes hint=mutually_exclusive: /);
    const doc = CLI_DOCS;
    for (const run of [none, both]) expect(doc).toContain("`" + run.stderr.trim() + "`");
  });

  it("engram export refuses an empty --scope with an envelope, as scan, verify and purge do", async () => {
    const dataDir = freshDir();
    const file = join(freshDir(), "good.jsonl");
    writeFileSync(file, [headerLine({ embedder: local, vectors: true }), recordLine(record(1), vector())].join("\n") + "\n");
    expect((await runEngram(["import", file], { ENGRAM_DATA_DIR: dataDir })).code).toBe(EXIT.ok);
    const line = "field=scope hint=required: --scope must name one scope; leave it out to export every scope\n";
    for (const args of [["--owner", "", "--scope", ""], ["--all-owners", "--scope", " "]]) {
      const run = await runEngram(["export", ...args], { ENGRAM_DATA_DIR: dataDir });
      expect({ code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ code: EXIT.usage, stderr: line, stdout: "" });
    }
    const scan = await runEngram(["spine-review", "scan", "--scope", ""], { ENGRAM_DATA_DIR: dataDir });
    expect({ code: scan.code, envelope: scan.stderr.startsWith("field=scope") }).toEqual({ code: EXIT.usage, envelope: true });
    const doc = CLI_DOCS;
    expect(doc).toContain("`" + line.trim() + "`");
  });

  it("engram backup copies the store while a server writes: the copy opens and holds every acknowledged record", async () => {
    const { server } = await portableFixture();
    try {
      const alice = server.client(TOKENS.alice);
      const acknowledged: string[] = [];
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) acknowledged.push((await alice.storeMemory({ content: `note ${i}`, scope: "repo:w", source: "user-said", category: "gotcha" })).id);
      })();
      while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 10));
      const before = [...acknowledged];
      const file = join(freshDir(), "backup.db");
      const r = await runEngram(["backup", file, "--output", "json"], { ENGRAM_DATA_DIR: server.dataDir });
      const during = acknowledged.length;
      writing = false;
      await writer;
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
      // The server kept acknowledging writes while the copy was taken.
      expect(during).toBeGreaterThan(before.length);
      const report = JSON.parse(r.stdout) as { file: string; records: number; bytes: number; vector_snapshot: string };
      expect(report).toMatchObject({ file, vector_snapshot: "rebuilt" });

      // Restore: the file as engram.db in an empty data directory opens as a store.
      const restoreDir = freshDir();
      const db = openSqlite(file, { readonly: true });
      const copied = new Set((db.prepare("SELECT id FROM records").all() as { id: string }[]).map((x) => x.id));
      db.close();
      expect(copied.size).toBe(report.records);
      for (const id of before) expect(copied.has(id), id).toBe(true);
      writeFileSync(join(restoreDir, "engram.db"), (await import("node:fs")).readFileSync(file));
      const restored = EmbeddedStore.open({ dataDir: restoreDir, dim: 64 });
      for (const id of before) expect((await restored.getRaw(id))?.id).toBe(id);
      await restored.close();

      const again = await runEngram(["backup", file], { ENGRAM_DATA_DIR: server.dataDir });
      expect({ code: again.code, stderr: again.stderr }).toEqual({ code: EXIT.usage, stderr: "engram: the backup file already exists; a backup never overwrites a file\n" });
    } finally {
      await server.close();
    }
  });
});
