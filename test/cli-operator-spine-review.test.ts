/**
 * `engram spine-review …` run as the real binary against a store seeded in
 * this process (and closed before any child opens it), with a temporary
 * working tree for citation checks.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../src/store/embedded/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, ruleError } from "../src/argerror/index.js";
import type { FlipDocument } from "../src/operator-cli/index.js";
import type { MemoryRecord } from "../src/core/index.js";
import type { ScanReport, VerifyReport } from "../src/operator/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { childStoreEnv, embeddedOnly, ON_QDRANT_FAKE, qdrantRequestsFor } from "./helpers/test-store.js";
import { runEngram } from "./helpers/run-engram.js";

const ON_FILE = "it reads the seeded SQLite file; spine-review on Qdrant is tested in its own file";
const DIM = 512;

const NOW_S = Math.floor(Date.now() / 1000);
/** The excerpt of the broken citation; no report may ever print it. */
const SECRET_EXCERPT = "export const vanished = 'never print me';";

function record(n: number, extra: Partial<MemoryRecord>): MemoryRecord {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    short_id: `SR${String(n).padStart(8, "0")}`,
    content: `spine review record ${n}`,
    scope: "project:demo",
    repo: "",
    workspace: "",
    worktree_path: "",
    base_dir: "",
    source: "user-said",
    category: "decision",
    tags: [],
    actor: "",
    owner: n % 2 === 0 ? "alice" : "bob",
    visibility: "",
    created_at: new Date(1_700_000_000_000 + n * 1000).toISOString(),
    summary: "",
    summary_source: "",
    summary_model: "",
    access_count: 0,
    kind: "",
    citations: [],
    supersedes: [],
    ...extra,
  };
}

const BROKEN = record(1, {
  citations: [{ kind: "file", ref: "src/vanished.ts", locator: "1", pin: "", excerpt: SECRET_EXCERPT }],
});
const VALID = record(2, {
  citations: [{ kind: "file", ref: "src/here.ts", locator: "2", pin: "", excerpt: "export function here()" }],
});
const ARCHIVED = record(3, { archived_at: new Date(1_700_000_500_000).toISOString() });
const EXPIRED = record(4, { not_after: NOW_S - 3600 });
const OTHER_SCOPE = record(5, { scope: "project:other", category: "gotcha" });
const TARGET = record(6, { scope: "project:flip" });

describe("engram spine-review", { timeout: 180_000 }, () => {
  let dataDir: string;
  let workTree: string;
  let env: Record<string, string>;
  let refusalEnv: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "engram-op-sr-"));
    workTree = mkdtempSync(join(tmpdir(), "engram-op-wt-"));
    mkdirSync(join(workTree, "src"));
    writeFileSync(join(workTree, "src", "here.ts"), "// header\nexport function here() {\n  return 1;\n}\n");
    env = { ENGRAM_DATA_DIR: dataDir };
    // Refusals come before any store is opened: on the fake they run with the run's Qdrant collection configured instead.
    refusalEnv = ON_QDRANT_FAKE ? await childStoreEnv(join(workTree, "no-store-here")) : env;

    const store = EmbeddedStore.open({ dataDir, dim: DIM });
    const v = new Float32Array(DIM);
    v[0] = 1;
    store.transaction(() => {
      for (const r of [BROKEN, VALID, ARCHIVED, EXPIRED, OTHER_SCOPE, TARGET]) store.writeRecord(r, v, CURRENT_SCHEMA_VERSION);
    });
    await store.close();
  });

  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (workTree) rmSync(workTree, { recursive: true, force: true });
  });

  const storeHash = () => createHash("sha256").update(readFileSync(join(dataDir, "engram.db"))).digest("hex");
  const archivedAt = (id: string) => {
    const db = openSqlite(join(dataDir, "engram.db"));
    try {
      return (db.prepare("SELECT archived_at FROM records WHERE id = ?").get(id) as { archived_at: string | null }).archived_at;
    } finally {
      db.close();
    }
  };

  describe("verify", () => {
    it.skipIf(ON_QDRANT_FAKE)(embeddedOnly("--fail-on broken exits 7 when a cited file is missing from --work-tree, and the report names it without its excerpt", ON_FILE), async () => {
      const run = await runEngram(["spine-review", "verify", "--scope", "project:demo", "--work-tree", workTree, "--fail-on", "broken"], env);
      expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: EXIT.findings });
      expect(run.stderr).toContain("engram: verify found 1 citation(s) in tier broken (--fail-on broken)");
      const report = JSON.parse(run.stdout) as VerifyReport;
      expect(report).toMatchObject({ work_tree: workTree, records: 2, citations: 2, counts: { valid: 1, moved: 0, broken: 1, unverifiable: 0 } });
      expect(report.findings.find((f) => f.tier === "broken")).toMatchObject({
        id: BROKEN.id,
        short_id: BROKEN.short_id,
        ref: "src/vanished.ts",
        reason: "file missing",
      });
      expect(run.stdout).not.toContain(SECRET_EXCERPT);
      for (const f of report.findings) expect(Object.keys(f)).not.toContain("excerpt");
    });

    it.skipIf(ON_QDRANT_FAKE)(embeddedOnly("without --fail-on exits 0 whatever it finds", ON_FILE), async () => {
      const run = await runEngram(["spine-review", "verify", "--all-scopes", "--work-tree", workTree], env);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
      expect((JSON.parse(run.stdout) as VerifyReport).counts.broken).toBe(1);
    });

    it.skipIf(ON_QDRANT_FAKE)(embeddedOnly("--fail-on names one tier: --fail-on moved exits 0 when only a broken citation exists", ON_FILE), async () => {
      const run = await runEngram(["spine-review", "verify", "--scope", "project:demo", "--work-tree", workTree, "--fail-on", "moved"], env);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    });

    it("--fail-on with an unknown tier exits 2 with the enum envelope before opening the store", async () => {
      const run = await runEngram(["spine-review", "verify", "--all-scopes", "--work-tree", workTree, "--fail-on", "bogus"], {
        ...refusalEnv,
        ENGRAM_DATA_DIR: join(workTree, "no-store-here"),
      });
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT.usage, stdout: "" });
      expect(run.stderr.split("\n")).toContain(
        "field=fail-on hint=enum: fail-on accepts broken, moved, unverifiable, or any; omitted, verify exits 0 regardless of findings",
      );
      expect(run.stderr.split("\n")).toContain(`${ruleError("verify-fail-on-accepted-values").message}`);
      expect(existsSync(join(workTree, "no-store-here"))).toBe(false);
      expect(await qdrantRequestsFor(refusalEnv)).toBe(0);
    });

    it.skipIf(ON_QDRANT_FAKE)(embeddedOnly("the text view lists the finding and never the excerpt", ON_FILE), async () => {
      const run = await runEngram(["spine-review", "verify", "--scope", "project:demo", "--work-tree", workTree, "--output", "text"], env);
      expect(run.code).toBe(EXIT.ok);
      expect(run.stdout).toMatch(/SR00000001 +project:demo +0 +broken +src\/vanished\.ts +1 +file missing/);
      expect(run.stdout).not.toContain(SECRET_EXCERPT);
    });
  });

  describe("scope selection", () => {
    it.concurrent.for([
      { name: "scan with neither --scope nor --all-scopes", args: ["spine-review", "scan"] },
      { name: "verify with neither --scope nor --all-scopes", args: ["spine-review", "verify"] },
    ])("$name exits 2 with the sweep envelope", async ({ args }, { expect }) => {
      const run = await runEngram(args, refusalEnv);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT.usage, stdout: "" });
      expect(run.stderr.split("\n")).toContain(`${ruleError("sweep-scope-or-all-scopes-required").message}`);
      expect(await qdrantRequestsFor(refusalEnv)).toBe(0);
    });

    it("--scope together with --all-scopes exits 2 naming both fields", async () => {
      const run = await runEngram(["spine-review", "scan", "--scope", "project:demo", "--all-scopes"], refusalEnv);
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr).toContain("field=scope,all-scopes hint=mutually_exclusive:");
      expect(await qdrantRequestsFor(refusalEnv)).toBe(0);
    });
  });

  describe("scan", () => {
    it.skipIf(ON_QDRANT_FAKE)(embeddedOnly("counts archived and expired records in their own buckets, apart from live ones", ON_FILE), async () => {
      const run = await runEngram(["spine-review", "scan", "--scope", "project:demo"], env);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
      const report = JSON.parse(run.stdout) as ScanReport;
      expect(report).toMatchObject({ scopes: 1, total: 4 });
      expect(report.rows).toEqual([
        expect.objectContaining({ scope: "project:demo", category: "decision", live: 2, archived: 1, expired: 1, superseded: 0, scheduled: 0 }),
      ]);
    });

    it.skipIf(ON_QDRANT_FAKE)(embeddedOnly("--all-scopes covers every scope and every owner", ON_FILE), async () => {
      const run = await runEngram(["spine-review", "scan", "--all-scopes"], env);
      expect(run.code).toBe(EXIT.ok);
      const report = JSON.parse(run.stdout) as ScanReport;
      expect(report.scopes).toBe(3);
      expect(report.total).toBe(6);
      expect(report.rows.map((r) => `${r.scope}/${r.category}`)).toEqual(["project:demo/decision", "project:flip/decision", "project:other/gotcha"]);
    });
  });

  describe("archive and restore", () => {
    it.skipIf(ON_QDRANT_FAKE)(embeddedOnly("archive previews by default, --apply archives, and a repeat reports already", ON_FILE), async () => {
      const before = storeHash();
      const preview = await runEngram(["spine-review", "archive", "--id", TARGET.short_id, "--id", "ZZZZZZZZZZ"], env);
      expect({ code: preview.code, stderr: preview.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
      expect(JSON.parse(preview.stdout) as FlipDocument).toEqual({
        dry_run: true,
        results: [
          { requested: TARGET.short_id, id: TARGET.id, outcome: "changed" },
          { requested: "ZZZZZZZZZZ", id: "", outcome: "not_found" },
        ],
      });
      expect(storeHash()).toBe(before);
      expect(archivedAt(TARGET.id)).toBeNull();

      const applied = await runEngram(["spine-review", "archive", "--id", TARGET.id, "--apply"], env);
      expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
      expect(JSON.parse(applied.stdout)).toEqual({ dry_run: false, results: [{ requested: TARGET.id, id: TARGET.id, outcome: "changed" }] });
      expect(archivedAt(TARGET.id)).not.toBeNull();

      const again = await runEngram(["spine-review", "archive", "--id", TARGET.short_id, "--apply"], env);
      expect(JSON.parse(again.stdout)).toEqual({ dry_run: false, results: [{ requested: TARGET.short_id, id: TARGET.id, outcome: "already" }] });

      const restored = await runEngram(["spine-review", "restore", "--id", TARGET.short_id, "--apply"], env);
      expect(JSON.parse(restored.stdout)).toEqual({ dry_run: false, results: [{ requested: TARGET.short_id, id: TARGET.id, outcome: "changed" }] });
      expect(archivedAt(TARGET.id)).toBeNull();
    });

    it("archive without --id exits 2 with the ids envelope", async () => {
      const run = await runEngram(["spine-review", "archive", "--apply"], refusalEnv);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT.usage, stdout: "" });
      expect(run.stderr.split("\n")).toContain("field=id hint=required: --id is required");
      expect(await qdrantRequestsFor(refusalEnv)).toBe(0);
    });
  });
});
