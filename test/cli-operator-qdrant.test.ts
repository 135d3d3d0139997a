/**
 * The operator verbs `engram migrate`, `migrate status`, `migrate revert`
 * and `engram spine-review …` run as the real binary with ENGRAM_QDRANT_URL
 * pointing at the loopback Qdrant fake started in this process (every
 * request checked against Qdrant's own schemas). Each test seeds a
 * collection of its own through the Store port and reads the outcome from
 * the fake's state, not through the code under test.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import type { FlipDocument } from "../src/operator-cli/index.js";
import type { MigrationStatus } from "../src/core/migrate-status.js";
import type { MemoryRecord } from "../src/model/record.js";
import type { ScanReport, VerifyReport } from "../src/operator/index.js";
import type { MigrateReport, RevertReport } from "../src/store/migrations/index.js";
import { physicalCollectionName, QdrantStore } from "../src/store/qdrant/index.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { runEngram } from "./helpers/run-engram.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
/** With no ENGRAM_OPENAI_BASE_URL the CLI opens the store with the local embedder's dimension. */
const DIM = 512;
const VECTOR = (() => {
  const v = new Float32Array(DIM);
  v[0] = 1;
  return v;
})();

let fake: QdrantFake;
const tmpDirs: string[] = [];

beforeAll(async () => {
  fake = await startQdrantFake({ warn: () => {} });
});

afterEach(() => {
  fake.faults.clear();
  fake.holds.releaseAll();
  expect(fake.schemaViolations).toEqual([]);
});

afterAll(async () => {
  await fake?.close();
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

/** A collection of its own per test, and an ENGRAM_DATA_DIR that must stay unused. */
function deployment(): { alias: string; env: Record<string, string> } {
  const alias = QdrantStore.uniqueCollection("op");
  const unused = mkdtempSync(join(tmpdir(), "engram-op-qd-"));
  tmpDirs.push(unused);
  return { alias, env: { ENGRAM_QDRANT_URL: fake.url, ENGRAM_QDRANT_COLLECTION: alias, ENGRAM_DATA_DIR: join(unused, "unused") } };
}

function payload(i: number, version: number | null, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  const minted = version !== null && version >= 1 ? { short_id: `Q${String(i).padStart(9, "0")}` } : {};
  const sized = version !== null && version >= 2 ? { content_bytes: Buffer.byteLength(syntheticRecord(i).content, "utf8") } : {};
  return syntheticRecord(i, { ...minted, ...sized, ...extra });
}

/** Records as an older (or newer) binary wrote them: stamped `version`, null for no key at all. */
async function seed(alias: string, rows: readonly { i: number; version: number | null; extra?: Partial<MemoryRecord> }[]): Promise<void> {
  const qd = await QdrantStore.open({ url: fake.url, collection: alias, dim: DIM });
  try {
    await qd.importBatch(rows.map((r) => ({ record: payload(r.i, r.version, r.extra), vector: VECTOR, version: r.version })));
  } finally {
    await qd.close();
  }
}

const range = (n: number, version: number | null, start = 0) => Array.from({ length: n }, (_, k) => ({ i: start + k, version }));

/** Every stored payload of the deployment's collection, straight from the fake, by id. */
function stored(alias: string): Map<string, Record<string, unknown>> {
  const c = fake.state.resolve(alias);
  return new Map([...c.points.values()].map((p) => [String(p.id), structuredClone(p.payload) as Record<string, unknown>]));
}

function versionCounts(alias: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of stored(alias).values()) {
    const v = typeof p.schema_version === "number" ? String(p.schema_version) : "absent";
    out[v] = (out[v] ?? 0) + 1;
  }
  return out;
}

function without(p: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const copy = { ...p };
  for (const k of keys) delete copy[k];
  return copy;
}

const snapshotsOf = (alias: string) => fake.state.snapshots.get(physicalCollectionName(alias)) ?? [];

describe("engram migrate on Qdrant", { timeout: 180_000 }, () => {
  it("the preview counts the records below the target and writes nothing, not even a pin", async () => {
    const { alias, env } = deployment();
    await seed(alias, [...range(30, 1), ...range(5, null, 100), ...range(4, CURRENT_SCHEMA_VERSION, 200)]);
    const before = stored(alias);

    const run = await runEngram(["migrate", "--output", "json"], env);

    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    const report = JSON.parse(run.stdout) as MigrateReport;
    expect(Object.keys(report)).toEqual(["target", "dry_run", "would_migrate", "migrated", "failed", "passes", "backlog", "spared", "appeared"]);
    expect(report).toEqual({ target: CURRENT_SCHEMA_VERSION, dry_run: true, would_migrate: 35, migrated: 0, failed: 0, passes: 0, backlog: 35, spared: 0, appeared: 0 });
    expect(stored(alias)).toEqual(before);
    expect(snapshotsOf(alias)).toEqual([]);
  });

  it("--apply makes a collection snapshot first, names it on stderr, and migrates every record in batches", async () => {
    const { alias, env } = deployment();
    await seed(alias, [...range(60, 1), ...range(7, null, 100)]);
    const before = stored(alias);

    const run = await runEngram(["migrate", "--apply", "--batch-size", "16", "--output", "json"], env);

    expect(run.code).toBe(EXIT.ok);
    const snaps = snapshotsOf(alias);
    expect(snaps).toHaveLength(1);
    expect(run.stderr).toBe(
      `engram: made snapshot ${String(snaps[0]!.name)} of Qdrant collection ${physicalCollectionName(alias)} before writing; recover the collection from it to undo this run\n`,
    );
    // The snapshot was asked for before the first write of the run (the pin).
    const ops = fake.requests.filter((r) => r.collection === alias || r.collection === physicalCollectionName(alias)).map((r) => r.operation);
    const snapAt = ops.indexOf("create_snapshot");
    expect(snapAt).toBeGreaterThan(-1);
    expect(ops.indexOf("set_payload")).toBeGreaterThan(snapAt);
    expect(ops.indexOf("batch_update")).toBeGreaterThan(snapAt);

    const report = JSON.parse(run.stdout) as MigrateReport;
    expect(report).toMatchObject({ target: CURRENT_SCHEMA_VERSION, dry_run: false, would_migrate: 67, migrated: 67, failed: 0, backlog: 0, spared: 0, appeared: 0 });
    // 67 records in batches of 16: five passes that write, one that finds nothing left.
    expect(report.passes).toBe(6);
    expect(versionCounts(alias)).toEqual({ [String(CURRENT_SCHEMA_VERSION)]: 67 });
    for (const [id, p] of stored(alias)) {
      const was = before.get(id)!;
      expect(typeof p.short_id === "string" && /^[0-9A-Z]{10}$/.test(p.short_id), id).toBe(true);
      if (was.short_id) expect(p.short_id, id).toBe(was.short_id);
      expect(p.content_bytes, id).toBe(Buffer.byteLength(String(was.content), "utf8"));
      expect(p.revision, id).not.toBe(was.revision);
      expect(without(p, "schema_version", "content_bytes", "revision", "short_id", "migrate_pin"), id).toEqual(without(was, "schema_version", "revision", "short_id"));
    }

    const status = await runEngram(["migrate", "status", "--output", "json"], env);
    expect({ code: status.code, stderr: status.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(status.stdout) as MigrationStatus).toEqual({
      buckets: [{ version: CURRENT_SCHEMA_VERSION, count: 67 }],
      absent: 0,
      future: [],
      future_total: 0,
      total: 67,
      current_version: CURRENT_SCHEMA_VERSION,
      pending: 0,
    });
  });

  it("--no-snapshot migrates without a snapshot", async () => {
    const { alias, env } = deployment();
    await seed(alias, range(10, 1));
    const run = await runEngram(["migrate", "--apply", "--no-snapshot"], env);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(run.stdout)).toMatchObject({ migrated: 10, backlog: 0 });
    expect(snapshotsOf(alias)).toEqual([]);
    expect(versionCounts(alias)).toEqual({ [String(CURRENT_SCHEMA_VERSION)]: 10 });
  });

  it("a snapshot that fails stops the run before any write: exit 5, and every record as it was", async () => {
    const { alias, env } = deployment();
    await seed(alias, range(10, 1));
    const before = stored(alias);
    fake.faults.inject({ match: { operation: "create_snapshot" }, fault: { kind: "status", status: 500, message: "Service internal error: snapshot storage is full" } });

    const run = await runEngram(["migrate", "--apply"], env);

    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT.unavailable, stdout: "" });
    expect(run.stderr).toMatch(/^engram: the Qdrant collection snapshot could not be made \(.+\), so nothing was migrated; fix the snapshot storage and re-run, or pass --no-snapshot to migrate without one\n$/);
    // Qdrant's own text never reaches the operator.
    expect(run.stderr).not.toContain("snapshot storage is full");
    expect(stored(alias)).toEqual(before);
  });

  it("migrate status counts absent, current and future versions", async () => {
    const { alias, env } = deployment();
    await seed(alias, [...range(3, null), ...range(4, 1, 10), ...range(5, CURRENT_SCHEMA_VERSION, 20), ...range(2, 9, 30)]);
    const run = await runEngram(["migrate", "status"], env);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(run.stdout) as MigrationStatus).toEqual({
      buckets: [
        { version: 1, count: 4 },
        { version: CURRENT_SCHEMA_VERSION, count: 5 },
      ],
      absent: 3,
      future: [{ version: 9, count: 2 }],
      future_total: 2,
      total: 14,
      current_version: CURRENT_SCHEMA_VERSION,
      pending: 7,
    });
  });
});

describe("engram migrate revert on Qdrant", { timeout: 180_000 }, () => {
  it("--to 0 --apply over v2 records exits 2 with the irreversible envelope and writes nothing", async () => {
    const { alias, env } = deployment();
    await seed(alias, range(20, 2));
    const before = stored(alias);

    const run = await runEngram(["migrate", "revert", "--to", "0", "--apply", "--output", "json"], env);

    expect(run.code).toBe(EXIT.usage);
    const report = JSON.parse(run.stdout) as RevertReport;
    expect(report).toEqual({ to: 0, applied: false, reversible: false, candidates: 20, reverted: 0, failed: 0, passes: 0, backlog: 0, refusal: report.refusal });
    expect(report.refusal).toMatch(/^field=steps hint=irreversible: revert cannot reach v0: step \(From=0 To=1\) is irreversible: .+; recovery is a collection snapshot$/);
    expect(run.stderr.split("\n")).toContain(report.refusal);
    expect(stored(alias)).toEqual(before);
  });

  it("--to 1 --apply over records from a newer binary exits 2 with the unsupported envelope and writes nothing", async () => {
    const { alias, env } = deployment();
    await seed(alias, [...range(5, 2), ...range(2, 9, 50)]);
    const before = stored(alias);

    const run = await runEngram(["migrate", "revert", "--to", "1", "--apply", "--output", "json"], env);

    expect(run.code).toBe(EXIT.usage);
    const report = JSON.parse(run.stdout) as RevertReport;
    expect(report).toMatchObject({ to: 1, applied: false, reversible: false, candidates: 7, reverted: 0, passes: 0, backlog: 0 });
    expect(report.refusal).toBe("field=record_version hint=unsupported: 2 record(s) at version 9 have no reachable chain to target 1; recovery is a collection snapshot");
    expect(run.stderr.split("\n")).toContain(report.refusal);
    expect(stored(alias)).toEqual(before);
  });

  it("a reachable revert previews, then --apply reverts every record and drops only the key its step added", async () => {
    const { alias, env } = deployment();
    await seed(alias, range(40, 2));
    const atV2 = stored(alias);

    const preview = await runEngram(["migrate", "revert", "--to", "1"], env);
    expect({ code: preview.code, stderr: preview.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(preview.stdout)).toEqual({ to: 1, applied: false, reversible: true, candidates: 40, reverted: 0, failed: 0, passes: 0, backlog: 40 });
    expect(stored(alias)).toEqual(atV2);

    const applied = await runEngram(["migrate", "revert", "--to", "1", "--apply", "--batch-size", "15"], env);
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(applied.stdout)).toEqual({ to: 1, applied: true, reversible: true, candidates: 40, reverted: 40, failed: 0, passes: 4, backlog: 0 });
    expect(versionCounts(alias)).toEqual({ "1": 40 });
    for (const [id, p] of stored(alias)) {
      expect(without(p, "revision"), id).toEqual({ ...without(atV2.get(id)!, "content_bytes", "revision"), schema_version: 1 });
      expect(p.revision, id).not.toBe(atV2.get(id)!.revision);
    }
  });
});

describe("operator verbs when Qdrant cannot be reached", { timeout: 120_000 }, () => {
  it("migrate, migrate status, migrate revert and spine-review scan exit 5 (unavailable)", async () => {
    const down = await startQdrantFake({ warn: () => {} });
    const url = down.url;
    await down.close();
    const env = { ENGRAM_QDRANT_URL: url, ENGRAM_DATA_DIR: join(REPO, "no-such-dir-engram") };
    for (const args of [["migrate", "--apply"], ["migrate", "status"], ["migrate", "revert", "--to", "1"], ["spine-review", "scan", "--all-scopes"]]) {
      const run = await runEngram(args, env);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: EXIT.unavailable, stdout: "" });
      expect(run.stderr).toMatch(/^engram: /);
    }
  });

  it("serve and mcp exit 5 as well, with the line migrate status gives, before anything listens", async () => {
    const down = await startQdrantFake({ warn: () => {} });
    const url = down.url;
    await down.close();
    const env = { ENGRAM_QDRANT_URL: url, ENGRAM_DATA_DIR: join(REPO, "no-such-dir-engram") };
    const status = await runEngram(["migrate", "status"], env);
    const line = status.stderr.trim().split("\n").pop();
    expect({ code: status.code, line }).toEqual({ code: EXIT.unavailable, line: expect.stringMatching(/^engram: unavailable: /) });
    for (const args of [["serve", "--listen-addr", "127.0.0.1:0"], ["mcp"]]) {
      const run = await runEngram(args, env);
      expect({ args, code: run.code, stdout: run.stdout, line: run.stderr.trim().split("\n").pop() }).toEqual({ args, code: EXIT.unavailable, stdout: "", line });
    }
  });
});

describe("engram spine-review on Qdrant", { timeout: 180_000 }, () => {
  const NOW_S = Math.floor(Date.now() / 1000);
  const SECRET_EXCERPT = "export const vanished = 'never print me';";
  const rec = (i: number, extra: Partial<MemoryRecord>): MemoryRecord =>
    syntheticRecord(i, { short_id: `SQ${String(i).padStart(8, "0")}`, scope: "project:demo", owner: i % 2 === 0 ? "alice" : "bob", ...extra });
  const BROKEN = rec(1, { citations: [{ kind: "file", ref: "src/vanished.ts", locator: "1", pin: "", excerpt: SECRET_EXCERPT }] });
  const VALID = rec(2, { citations: [{ kind: "file", ref: "src/here.ts", locator: "2", pin: "", excerpt: "export function here()" }] });
  const ARCHIVED = rec(3, { archived_at: new Date(1_700_000_500_000).toISOString() });
  const EXPIRED = rec(4, { not_after: NOW_S - 3600 });
  const OTHER = rec(5, { scope: "project:other", category: "gotcha" });
  const TARGET = rec(6, { scope: "project:flip" });
  let alias: string;
  let env: Record<string, string>;
  let workTree: string;

  beforeAll(async () => {
    ({ alias, env } = deployment());
    workTree = mkdtempSync(join(tmpdir(), "engram-op-qd-wt-"));
    tmpDirs.push(workTree);
    mkdirSync(join(workTree, "src"));
    writeFileSync(join(workTree, "src", "here.ts"), "// header\nexport function here() {\n  return 1;\n}\n");
    const qd = await QdrantStore.open({ url: fake.url, collection: alias, dim: DIM });
    try {
      await qd.importBatch([BROKEN, VALID, ARCHIVED, EXPIRED, OTHER, TARGET].map((record) => ({ record, vector: VECTOR, version: CURRENT_SCHEMA_VERSION })));
    } finally {
      await qd.close();
    }
  });

  it("scan counts live, archived and expired records by scope and category, across every owner", async () => {
    // Written at the current version, so the codec stamps each record's real content_bytes.
    const demoBytes = [BROKEN, VALID, ARCHIVED, EXPIRED].reduce((n, r) => n + Buffer.byteLength(r.content, "utf8"), 0);
    const one = await runEngram(["spine-review", "scan", "--scope", "project:demo"], env);
    expect({ code: one.code, stderr: one.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(one.stdout) as ScanReport).toEqual({
      scopes: 1,
      total: 4,
      rows: [{ scope: "project:demo", category: "decision", live: 2, archived: 1, expired: 1, superseded: 0, scheduled: 0, bytes: demoBytes }],
    });
    const all = await runEngram(["spine-review", "scan", "--all-scopes"], env);
    const report = JSON.parse(all.stdout) as ScanReport;
    expect({ code: all.code, scopes: report.scopes, total: report.total }).toEqual({ code: EXIT.ok, scopes: 3, total: 6 });
    expect(report.rows.map((r) => `${r.scope}/${r.category}`)).toEqual(["project:demo/decision", "project:flip/decision", "project:other/gotcha"]);
  });

  it("verify --fail-on broken exits 7 naming the missing file, never its excerpt", async () => {
    const run = await runEngram(["spine-review", "verify", "--scope", "project:demo", "--work-tree", workTree, "--fail-on", "broken"], env);
    expect(run.code).toBe(EXIT.findings);
    expect(run.stderr).toContain("engram: verify found 1 citation(s) in tier broken (--fail-on broken)");
    const report = JSON.parse(run.stdout) as VerifyReport;
    expect(report).toMatchObject({ records: 2, citations: 2, counts: { valid: 1, moved: 0, broken: 1, unverifiable: 0 } });
    expect(report.findings.find((f) => f.tier === "broken")).toMatchObject({ id: BROKEN.id, ref: "src/vanished.ts", reason: "file missing" });
    expect(run.stdout).not.toContain(SECRET_EXCERPT);
  });

  it("archive previews by default, --apply archives by short id or id, a repeat reports already, restore undoes it", async () => {
    const archivedAt = () => stored(alias).get(TARGET.id)!.archived_at;
    const before = stored(alias);
    const preview = await runEngram(["spine-review", "archive", "--id", TARGET.short_id, "--id", "ZZZZZZZZZZ"], env);
    expect({ code: preview.code, stderr: preview.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(preview.stdout) as FlipDocument).toEqual({
      dry_run: true,
      results: [
        { requested: TARGET.short_id, id: TARGET.id, outcome: "changed" },
        { requested: "ZZZZZZZZZZ", id: "", outcome: "not_found" },
      ],
    });
    expect(stored(alias)).toEqual(before);

    const applied = await runEngram(["spine-review", "archive", "--id", TARGET.id, "--apply"], env);
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(applied.stdout)).toEqual({ dry_run: false, results: [{ requested: TARGET.id, id: TARGET.id, outcome: "changed" }] });
    expect(archivedAt()).toEqual(expect.any(String));

    const again = await runEngram(["spine-review", "archive", "--id", TARGET.short_id, "--apply"], env);
    expect(JSON.parse(again.stdout)).toEqual({ dry_run: false, results: [{ requested: TARGET.short_id, id: TARGET.id, outcome: "already" }] });

    const restored = await runEngram(["spine-review", "restore", "--id", TARGET.short_id, "--apply"], env);
    expect(JSON.parse(restored.stdout)).toEqual({ dry_run: false, results: [{ requested: TARGET.short_id, id: TARGET.id, outcome: "changed" }] });
    // An unset gate key is absent on Qdrant, never "".
    expect(archivedAt()).toBeUndefined();
  });
});

describe("a migrate --apply on Qdrant killed mid-run", { timeout: 300_000 }, () => {
  it("converges on the next run: every record at the target, none lost, no other key changed", async () => {
    const { alias, env } = deployment();
    const n = 120;
    await seed(alias, range(n, 1));
    const seeded = stored(alias);

    // The third batch of writes lands, and its answer is withheld: the kill comes after a write the CLI never saw acknowledged.
    const seen = new Set<number>();
    const hold = fake.holds.hold(
      (req) => {
        if (req.operation !== "batch_update" || req.collection !== alias) return false;
        seen.add(req.seq);
        return seen.size === 3;
      },
      { phase: "before-response" },
    );
    const child = spawn(process.execPath, ["bin/engram.js", "migrate", "--apply", "--no-snapshot", "--batch-size", "20"], {
      cwd: REPO,
      env: { ...childEnv(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
    await hold.reached;
    child.kill("SIGKILL");
    expect(await ended).toBe("SIGKILL");
    hold.release();
    expect(stdout).toBe("");

    const midway = versionCounts(alias);
    expect(midway).toEqual({ "1": n - 60, [String(CURRENT_SCHEMA_VERSION)]: 60 });

    const second = await runEngram(["migrate", "--apply", "--no-snapshot"], env);
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(second.stdout)).toMatchObject({ target: CURRENT_SCHEMA_VERSION, dry_run: false, would_migrate: n - 60, migrated: n - 60, failed: 0, backlog: 0, appeared: 0 });

    const after = stored(alias);
    expect([...after.keys()].sort()).toEqual([...seeded.keys()].sort());
    for (const [id, p] of after) {
      const was = seeded.get(id)!;
      expect(p.schema_version, id).toBe(CURRENT_SCHEMA_VERSION);
      expect(p.content_bytes, id).toBe(Buffer.byteLength(String(was.content), "utf8"));
      expect(without(p, "schema_version", "content_bytes", "revision"), id).toEqual(without(was, "schema_version", "revision"));
    }
  });
});

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
  return env;
}
