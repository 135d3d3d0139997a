/**
 * Issue 24, items 5, 6 and 8: operator verbs act on the store `engram serve`
 * would serve, or refuse, and never make an empty store to report on.
 *
 * Every verb runs as the real binary with HOME and XDG_DATA_HOME pointing
 * into a temporary root, so the default data directory is observable: after
 * each refusal the whole root (the named data directory, the default one and
 * any backup target) is compared file by file with what it held before.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { BACKUP_ON_QDRANT } from "../src/operator-cli/index.js";
import type { MemoryRecord } from "../src/model/record.js";
import type { ScanReport } from "../src/operator/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { META_EMBEDDER_IDENTITY } from "../src/store/meta-keys.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { runEngram, type CliRun } from "./helpers/run-engram.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

/** Planted in every argument a refusal could repeat; no line may carry it. */
const SECRET = "sekrit-op-7f3a";
/** The local model's identity: what the CLI's embedder is when no OpenAI endpoint is configured. */
const LOCAL = "local:universal-sentence-encoder-en:512";
const DIM = 512;
const NOW_S = Math.floor(Date.now() / 1000);
const CREATORS = "only engram serve, engram mcp and engram import create one";

let root: string;
let fake: QdrantFake;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "engram-edges-op-"));
  fake = await startQdrantFake({ warn: () => {} });
});

afterAll(async () => {
  await fake?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A fresh sandbox: its own HOME and XDG_DATA_HOME, so the default data directory is <sandbox>/xdg/engram. */
function sandbox(): { dir: string; env: Record<string, string>; defaultDir: string } {
  const dir = mkdtempSync(join(root, "box-"));
  mkdirSync(join(dir, "home"));
  mkdirSync(join(dir, "xdg"));
  return { dir, env: { HOME: join(dir, "home"), XDG_DATA_HOME: join(dir, "xdg") }, defaultDir: join(dir, "xdg", "engram") };
}

/** Every path under `dir` with its size and modification time: "nothing created or changed" is equality of two of these. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const p = join(at, name);
      const s = statSync(p);
      out.push(`${p.slice(dir.length)} ${s.isDirectory() ? "dir" : `${s.size} ${s.mtimeMs}`}`);
      if (s.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

function expectRefused(run: CliRun, line: string): void {
  expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: EXIT.usage, stdout: "", stderr: `engram: ${line}\n` });
  expect(run.stderr + run.stdout).not.toContain(SECRET);
}

const noStore = (dir: string, dflt = false) =>
  `no engram store in ${dir}${dflt ? " (the default, as ENGRAM_DATA_DIR is not set)" : ""}: it holds no engram.db; ` +
  `set ENGRAM_DATA_DIR to the data directory engram serve uses (${CREATORS})`;

const noCollection = (alias: string) =>
  `no engram collection behind the alias ${alias} on the Qdrant that ENGRAM_QDRANT_URL names; ` +
  `set ENGRAM_QDRANT_COLLECTION to the alias engram serve uses (${CREATORS})`;

/** Every operator verb but import, each with the arguments it needs to get as far as opening the store. */
const VERBS: { name: string; args: (box: string) => string[] }[] = [
  { name: "migrate status", args: () => ["migrate", "status", "--output", "json"] },
  { name: "migrate (preview)", args: () => ["migrate", "--output", "json"] },
  { name: "migrate --apply", args: () => ["migrate", "--apply", "--output", "json"] },
  { name: "migrate revert", args: () => ["migrate", "revert", "--to", "1", "--output", "json"] },
  { name: "backfill-short-ids", args: () => ["backfill-short-ids", "--output", "json"] },
  { name: "reindex", args: () => ["reindex", "--output", "json"] },
  { name: "spine-review scan", args: () => ["spine-review", "scan", "--all-scopes", "--output", "json"] },
  { name: "spine-review verify", args: (box) => ["spine-review", "verify", "--all-scopes", "--work-tree", join(box, "home"), "--output", "json"] },
  { name: "spine-review archive", args: () => ["spine-review", "archive", "--id", SECRET, "--apply", "--output", "json"] },
  { name: "spine-review restore", args: () => ["spine-review", "restore", "--id", SECRET, "--output", "json"] },
  { name: "prune-expired --apply", args: () => ["prune-expired", "--apply", "--output", "json"] },
  { name: "spine-review purge --apply", args: () => ["spine-review", "purge", "--class", "superseded", "--all-scopes", "--apply", "--output", "json"] },
  { name: "spine-review consolidate", args: () => ["spine-review", "consolidate", "--all-scopes", "--output", "json"] },
  { name: "migrate-remap-owner --apply", args: () => ["migrate-remap-owner", "--from-missing", "--to", SECRET, "--apply", "--output", "json"] },
  { name: "export", args: () => ["export", "--all-owners"] },
  { name: "backup", args: (box) => ["backup", join(box, `copy-${SECRET}.db`), "--output", "json"] },
];

/**
 * One verb of each way into the store (the migration engine, a read-only status, the
 * re-embedder, a lifecycle sweep, export's stream, backup's copy): every verb meets the
 * missing directory below, and these also meet the two other situations, which differ
 * only in the directory the line names.
 */
const REPRESENTATIVE = new Set(["migrate status", "migrate --apply", "reindex", "spine-review purge --apply", "export", "backup"]);
for (const name of REPRESENTATIVE) if (!VERBS.some((v) => v.name === name)) throw new Error(`no operator verb named ${name} in VERBS`);

describe("item 5: a data directory that holds no store is refused, and nothing is created", () => {
  it.each(VERBS)("$name, ENGRAM_DATA_DIR naming a directory that does not exist", async ({ args }) => {
    const box = sandbox();
    const dataDir = join(box.dir, "nonexistent", "x");
    const before = tree(box.dir);
    const run = await runEngram(args(box.dir), { ...box.env, ENGRAM_DATA_DIR: dataDir });
    expectRefused(run, noStore(dataDir));
    expect(tree(box.dir)).toEqual(before);
  });

  it.each(VERBS.filter((v) => REPRESENTATIVE.has(v.name)))("$name, ENGRAM_DATA_DIR unset: the default data directory is named and not created", async ({ args }) => {
    const box = sandbox();
    const before = tree(box.dir);
    const run = await runEngram(args(box.dir), box.env);
    expectRefused(run, noStore(box.defaultDir, true));
    expect(tree(box.dir)).toEqual(before);
  });

  it.each(VERBS.filter((v) => REPRESENTATIVE.has(v.name)))("$name, an existing directory without engram.db stays empty", async ({ args }) => {
    const box = sandbox();
    const dataDir = join(box.dir, "empty");
    mkdirSync(dataDir);
    const before = tree(box.dir);
    const run = await runEngram(args(box.dir), { ...box.env, ENGRAM_DATA_DIR: dataDir });
    expectRefused(run, noStore(dataDir));
    expect(tree(box.dir)).toEqual(before);
  });

  it("import into a data directory that does not exist creates the store: the one operator verb that may", async () => {
    const box = sandbox();
    const dataDir = join(box.dir, "fresh", "x");
    const file = join(box.dir, "empty.jsonl");
    writeFileSync(file, `{"embedder":"${LOCAL}","format":"engram-export","vectors":true,"version":1}\n`);
    const run = await runEngram(["import", file, "--output", "json"], { ...box.env, ENGRAM_DATA_DIR: dataDir });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(run.stdout)).toMatchObject({ imported: 0 });
    expect(statSync(join(dataDir, "engram.db")).isFile()).toBe(true);
    // The created store is one every other verb now accepts.
    const status = await runEngram(["migrate", "status", "--output", "json"], { ...box.env, ENGRAM_DATA_DIR: dataDir });
    expect({ code: status.code, stderr: status.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(existsSync(box.defaultDir)).toBe(false);
  }, 60_000);
});

/** A record of each window state and lifecycle, owned by two owners over two scopes. */
function fixture(): MemoryRecord[] {
  return [
    syntheticRecord(1, { owner: "alice", scope: "repo:a", short_id: "OPEXP00001" }),
    syntheticRecord(2, { owner: "bob", scope: "repo:a", short_id: "OPEXP00002", not_before: NOW_S + 86_400 }),
    syntheticRecord(3, { owner: "alice", scope: "repo:a", short_id: "OPEXP00003", not_after: NOW_S - 60 }),
    syntheticRecord(4, { owner: "alice", scope: "repo:a", short_id: "OPEXP00004", not_before: NOW_S - 60, not_after: NOW_S + 86_400 }),
    syntheticRecord(5, { owner: "bob", scope: "repo:a", short_id: "OPEXP00005", archived_at: new Date(1_700_000_500_000).toISOString() }),
    syntheticRecord(6, { owner: "", scope: "repo:b", short_id: "OPEXP00006", superseded_by: "00000000-0000-4000-8000-000000000001" }),
    syntheticRecord(7, { owner: "", scope: "repo:b", short_id: "OPEXP00007", citations: [{ kind: "file", ref: "a.ts", locator: "1", pin: "", excerpt: "x" }] }),
  ];
}

function vectorOf(i: number): Float32Array {
  const v = new Float32Array(DIM);
  v[i] = 0.6;
  v[i + 100] = 0.8;
  return v;
}

/** An embedded store under <box>/data holding the fixture, stamped by the local model's identity. */
async function seededDataDir(box: string): Promise<string> {
  const dataDir = join(box, "data");
  const store = EmbeddedStore.open({ dataDir, dim: DIM });
  store.transaction(() => {
    fixture().forEach((r, i) => store.writeRecord(r, vectorOf(i + 1), CURRENT_SCHEMA_VERSION));
  });
  await store.setMeta(META_EMBEDDER_IDENTITY, LOCAL);
  await store.close();
  return dataDir;
}

describe("item 8: spine-review scan counts a record whose window has not begun as scheduled, not live", () => {
  it("buckets each record once: archived, superseded, expired, scheduled, else live", async () => {
    const box = sandbox();
    const dataDir = await seededDataDir(box.dir);
    const run = await runEngram(["spine-review", "scan", "--all-scopes", "--output", "json"], { ...box.env, ENGRAM_DATA_DIR: dataDir });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    const bytes = (scope: string) => fixture().filter((r) => r.scope === scope).reduce((n, r) => n + Buffer.byteLength(r.content, "utf8"), 0);
    expect(JSON.parse(run.stdout) as ScanReport).toEqual({
      scopes: 2,
      total: 7,
      rows: [
        { scope: "repo:a", category: "decision", live: 2, archived: 1, expired: 1, superseded: 0, scheduled: 1, bytes: bytes("repo:a") },
        { scope: "repo:b", category: "decision", live: 1, archived: 0, expired: 0, superseded: 1, scheduled: 0, bytes: bytes("repo:b") },
      ],
    });
    const text = await runEngram(["spine-review", "scan", "--scope", "repo:a", "--output", "text"], { ...box.env, ENGRAM_DATA_DIR: dataDir });
    expect(text.stdout.split("\n").slice(0, 2).map((l) => l.split(/\s+/).filter(Boolean))).toEqual([
      ["SCOPE", "CATEGORY", "LIVE", "ARCHIVED", "EXPIRED", "SUPERSEDED", "SCHEDULED", "BYTES"],
      ["repo:a", "decision", "2", "1", "1", "0", "1", String(bytes("repo:a"))],
    ]);
  });
});

describe("item 6: with ENGRAM_QDRANT_URL set, operator verbs work on the Qdrant collection or refuse", () => {
  const qdrantEnv = (box: ReturnType<typeof sandbox>, alias: string) => ({
    ...box.env,
    ENGRAM_QDRANT_URL: fake.url,
    ENGRAM_QDRANT_COLLECTION: alias,
    ENGRAM_DATA_DIR: join(box.dir, "unused"),
  });

  it("export reads every point through the Qdrant collection: the same bytes as the embedded store's export of the same records", async () => {
    const box = sandbox();
    const dataDir = await seededDataDir(box.dir);
    const alias = QdrantStore.uniqueCollection("edges-export");
    const embedded = await runEngram(["export", "--all-owners"], { ...box.env, ENGRAM_DATA_DIR: dataDir });
    expect({ code: embedded.code, stderr: embedded.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    writeFileSync(join(box.dir, "moved.jsonl"), embedded.stdout);
    const moved = await runEngram(["import", join(box.dir, "moved.jsonl"), "--output", "json"], qdrantEnv(box, alias));
    expect({ code: moved.code, stderr: moved.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    // Kept the vectors: the export names the embedder the CLI is configured with.
    expect(JSON.parse(moved.stdout)).toMatchObject({ imported: 7, reembedded: 0 });
    const before = tree(box.dir);

    for (const args of [["--all-owners"], ["--owner", "alice"], ["--owner", ""], ["--all-owners", "--scope", "repo:b"], ["--owner", "bob", "--no-vectors"]]) {
      const want = await runEngram(["export", ...args], { ...box.env, ENGRAM_DATA_DIR: dataDir });
      const got = await runEngram(["export", ...args], qdrantEnv(box, alias));
      expect({ code: got.code, stderr: got.stderr }, args.join(" ")).toEqual({ code: EXIT.ok, stderr: "" });
      expect(got.stdout, args.join(" ")).toBe(want.stdout);
    }
    expect(embedded.stdout.split("\n").filter(Boolean)).toHaveLength(8);
    expect(embedded.stdout.split("\n")[0]).toBe(`{"embedder":"${LOCAL}","format":"engram-export","vectors":true,"version":1}`);
    // Neither the unused ENGRAM_DATA_DIR nor the default data directory was created.
    expect(tree(box.dir)).toEqual(before);
    expect(fake.schemaViolations).toEqual([]);
  }, 120_000);

  it("backup refuses, naming Qdrant's snapshot API, before it asks Qdrant anything or creates a file", async () => {
    const box = sandbox();
    const alias = QdrantStore.uniqueCollection("edges-backup");
    const qd = await QdrantStore.open({ url: fake.url, collection: alias, dim: DIM });
    await qd.importBatch(fixture().map((record, i) => ({ record, vector: vectorOf(i + 1), version: CURRENT_SCHEMA_VERSION })));
    await qd.close();
    const asked = fake.requests.length;
    const before = tree(box.dir);
    const run = await runEngram(["backup", join(box.dir, `copy-${SECRET}.db`), "--output", "json"], qdrantEnv(box, alias));
    expectRefused(run, BACKUP_ON_QDRANT);
    expect(BACKUP_ON_QDRANT).toContain("POST /collections/<collection>/snapshots");
    expect(readFileSync(new URL("../docs/qdrant.md", import.meta.url), "utf8")).toContain("`engram backup` refuses");
    expect(fake.requests.length).toBe(asked);
    expect(tree(box.dir)).toEqual(before);
  });

  it.each(VERBS.filter((v) => v.name !== "backup"))(
    "$name refuses a deployment with no collection behind its alias, and makes none",
    async ({ args }) => {
      const box = sandbox();
      const alias = QdrantStore.uniqueCollection("edges-none");
      const collections = [...fake.state.collections.keys()];
      const before = tree(box.dir);
      const run = await runEngram(args(box.dir), qdrantEnv(box, alias));
      expectRefused(run, noCollection(alias));
      expect(fake.state.aliases.has(alias)).toBe(false);
      expect([...fake.state.collections.keys()]).toEqual(collections);
      expect(tree(box.dir)).toEqual(before);
    },
  );
});
