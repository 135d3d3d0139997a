/**
 * `engram migrate`, `migrate status` and `migrate revert`, run as the real
 * binary against a store seeded in this process. The store is always closed
 * before a child opens it, except where a test races a child on purpose.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openSqlite, type SqliteDatabase } from "../src/store/embedded/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { revertText } from "../src/operator-cli/index.js";
import type { MemoryRecord } from "../src/core/index.js";
import { EmbeddedStore, SWEEP_WORKER_FROM } from "../src/store/embedded/embedded-store.js";
import type { MigrateReport, RevertReport } from "../src/store/migrations/index.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { childStoreEnv, embeddedOnly, ON_QDRANT_FAKE, qdrantRequestsFor } from "./helpers/test-store.js";

const ON_FILE = "it seeds and reads the SQLite file; migrate on Qdrant is tested in its own file";

const REPO = fileURLToPath(new URL("..", import.meta.url));
/** With no ENGRAM_OPENAI_BASE_URL the CLI opens the store with the local embedder's dimension. */
const DIM = 512;

type Run = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
  }
  return { ...env, ...extra };
}

/** A running `engram`; `line(re)` resolves with the first stderr line matching re. */
function startEngram(args: readonly string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ["bin/engram.js", ...args], { cwd: REPO, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters: { re: RegExp; resolve: (line: string) => void }[] = [];
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    for (const w of [...waiters]) {
      const hit = stderr.split("\n").find((l) => w.re.test(l));
      if (hit !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(hit);
      }
    }
  });
  const done = new Promise<Run>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const line = (re: RegExp) =>
    Promise.race([
      new Promise<string>((resolve) => waiters.push({ re, resolve })),
      done.then((r) => Promise.reject(new Error(`engram ended before printing ${re}: ${JSON.stringify(r)}`))),
    ]);
  return { child, done, line };
}

const runEngram = (args: readonly string[], env: Record<string, string>) => startEngram(args, env).done;

const tmpDirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "engram-op-mig-"));
  tmpDirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

function payload(i: number, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  return syntheticRecord(i, { short_id: `S${String(i).padStart(9, "0")}`, ...extra });
}

const VECTOR = (() => {
  const v = new Float32Array(DIM);
  v[0] = 1;
  return v;
})();

/** Records written by an older binary, stamped with `version` (null = no key, reads as v0). */
async function seed(dir: string, n: number, version: number | null, start = 0): Promise<void> {
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  store.transaction(() => {
    for (let i = start; i < start + n; i++) {
      const p = payload(i, version === null || version === 0 ? { short_id: "" } : {});
      store.writeRecord(p, VECTOR, version);
    }
  });
  await store.close();
}

/** Raw reads straight from the file, independent of the code under test. */
function withDb<T>(dir: string, fn: (db: SqliteDatabase) => T): T {
  const db = openSqlite(join(dir, "engram.db"));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const versionCounts = (dir: string) =>
  withDb(dir, (db) => db.prepare("SELECT schema_version AS v, count(*) AS n FROM records GROUP BY schema_version ORDER BY v").all());

const storedPayloads = (dir: string) =>
  withDb(dir, (db) => {
    const rows = db.prepare("SELECT id, payload FROM records ORDER BY id").all() as { id: string; payload: string }[];
    return new Map(rows.map((r) => [r.id, JSON.parse(r.payload) as Record<string, unknown>]));
  });

/** The file's bytes and the directory listing, to prove a run wrote nothing. */
function fingerprint(dir: string) {
  return {
    files: readdirSync(dir).sort(),
    sha256: createHash("sha256").update(readFileSync(join(dir, "engram.db"))).digest("hex"),
  };
}

function without(p: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const copy = { ...p };
  for (const k of keys) delete copy[k];
  return copy;
}

describe.skipIf(ON_QDRANT_FAKE)(embeddedOnly("engram migrate revert refusals", ON_FILE), { timeout: 180_000 }, () => {
  it("migrate revert --to 0 --apply over v2 records exits 2 with the irreversible envelope and leaves the store file byte for byte unchanged", async () => {
    const dir = dataDir();
    await seed(dir, 50, 2);
    const before = fingerprint(dir);

    const run = await runEngram(["migrate", "revert", "--to", "0", "--apply", "--output", "json"], { ENGRAM_DATA_DIR: dir });

    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: EXIT.usage });
    expect(run.stderr).toContain("field=steps hint=irreversible");
    const report = JSON.parse(run.stdout) as RevertReport;
    // Refused at preflight: all-zero progress counters, which is how a script tells it from a refusal inside the loop.
    expect(report).toEqual({ to: 0, applied: false, reversible: false, candidates: 50, reverted: 0, failed: 0, passes: 0, backlog: 0, refusal: report.refusal });
    expect(report.refusal).toMatch(/^field=steps hint=irreversible: revert cannot reach v0: step \(From=0 To=1\) is irreversible: .+; recovery is a collection snapshot$/);
    // The stderr line is the same envelope the report carries.
    expect(run.stderr.split("\n")).toContain(report.refusal);

    expect(fingerprint(dir)).toEqual(before);
    expect(versionCounts(dir)).toEqual([{ v: 2, n: 50 }]);
  });

  it("the preview of the same range exits 0 and prints reversible false with the refusal, in json and in text", async () => {
    const dir = dataDir();
    await seed(dir, 50, 2);
    const before = fingerprint(dir);

    const json = await runEngram(["migrate", "revert", "--to", "0", "--output", "json"], { ENGRAM_DATA_DIR: dir });
    expect({ code: json.code, stderr: json.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    const report = JSON.parse(json.stdout) as RevertReport;
    expect(Object.keys(report)).toEqual(["to", "applied", "reversible", "candidates", "reverted", "failed", "passes", "backlog", "refusal"]);
    expect(report).toMatchObject({ to: 0, applied: false, reversible: false, candidates: 50, backlog: 50 });
    expect(report.refusal).toMatch(/^field=steps hint=irreversible: /);

    const text = await runEngram(["migrate", "revert", "--to", "0", "--output", "text"], { ENGRAM_DATA_DIR: dir });
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout).toContain("REFUSED");
    expect(text.stdout).toContain(`refusal: ${report.refusal}`);

    expect(fingerprint(dir)).toEqual(before);
  });

  it("an --apply typed before revert is refused with exit 2 and nothing written, not run as a preview that exits 0", async () => {
    const dir = dataDir();
    await seed(dir, 20, 2);
    const before = fingerprint(dir);

    const run = await runEngram(["migrate", "--apply", "revert", "--to", "1", "--output", "json"], { ENGRAM_DATA_DIR: dir });
    expect(run).toEqual({
      code: EXIT.usage,
      signal: null,
      stdout: "",
      stderr: "engram: --apply must follow the subcommand (engram migrate revert --apply); given before revert it is a flag of engram migrate itself, so nothing was run\n",
    });
    expect(fingerprint(dir)).toEqual(before);
    expect(versionCounts(dir)).toEqual([{ v: 2, n: 20 }]);
  });

  it("a revert to a reachable version previews without a refusal and --apply reverts every record", async () => {
    const dir = dataDir();
    await seed(dir, 40, 2);
    const atV2 = storedPayloads(dir);

    const preview = await runEngram(["migrate", "revert", "--to", "1"], { ENGRAM_DATA_DIR: dir });
    expect(preview.code).toBe(EXIT.ok);
    const planned = JSON.parse(preview.stdout) as RevertReport;
    expect(planned).toEqual({ to: 1, applied: false, reversible: true, candidates: 40, reverted: 0, failed: 0, passes: 0, backlog: 40 });

    const applied = await runEngram(["migrate", "revert", "--to", "1", "--apply"], { ENGRAM_DATA_DIR: dir });
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(applied.stdout)).toMatchObject({ to: 1, applied: true, reversible: true, candidates: 40, reverted: 40, failed: 0, backlog: 0 });
    expect(versionCounts(dir)).toEqual([{ v: 1, n: 40 }]);
    for (const [id, p] of storedPayloads(dir)) {
      // Every key but the derived one is back; the revision is new (a sweep write is a write).
      expect(without(p, "revision")).toEqual({ ...without(atV2.get(id)!, "content_bytes", "revision"), schema_version: 1 });
      expect(p.revision).not.toBe(atV2.get(id)!.revision);
    }
  });

  it("a record that appears mid-loop with no way back refuses with the real counters, and the text says the collection is partially reverted", async () => {
    const dir = dataDir();
    // Enough passes that the racing write lands while the loop still runs, however fast a pass is.
    const n = 20_000;
    await seed(dir, n, 2);
    // Opened before the child starts, so the racing write costs only the write itself.
    const racer = EmbeddedStore.open({ dataDir: dir, dim: DIM });

    // Two records per batch keep the loop running long enough to land a racing write, and
    // the backlog still shrinks across the pass that sees it (one racer per pass would not).
    const child = startEngram(["migrate", "revert", "--to", "1", "--apply", "--batch-size", "2", "--output", "json"], {
      ENGRAM_DATA_DIR: dir,
      ENGRAM_PROGRESS: "always",
    });
    try {
      await child.line(new RegExp(`^engram: reverted \\d+/${n} `));
      // The child commits a batch every few milliseconds; a write that loses the race for the lock is retried.
      for (let attempt = 0; ; attempt++) {
        try {
          racer.transaction(() => racer.writeRecord(payload(n + 1), VECTOR, 9));
          break;
        } catch (err) {
          if (attempt > 200 || !/SQLITE_BUSY/.test(String((err as { code?: string }).code))) throw err;
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    } finally {
      await racer.close();
    }
    const run = await child.done;

    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: EXIT.usage });
    expect(run.stderr).toContain("field=record_version hint=unsupported: 1 record(s) at version 9 have no reachable chain to target 1; recovery is a collection snapshot");
    const report = JSON.parse(run.stdout) as RevertReport;
    expect(report).toMatchObject({ to: 1, applied: false, reversible: false, candidates: 1, failed: 0 });
    expect(report.reverted).toBeGreaterThan(0);
    expect(report.passes).toBeGreaterThan(1);
    expect(report.backlog).toBeGreaterThanOrEqual(1);

    // The counters are real: the file holds exactly what the report says happened.
    expect(versionCounts(dir)).toEqual([
      { v: 1, n: report.reverted },
      ...(n - report.reverted > 0 ? [{ v: 2, n: n - report.reverted }] : []),
      { v: 9, n: 1 },
    ]);
    const text = revertText(report, true);
    expect(text).toContain("PARTIALLY reverted");
    expect(text).toContain("engram migrate status");
  });
});

describe.skipIf(ON_QDRANT_FAKE)(embeddedOnly("engram migrate preview and status", ON_FILE), { timeout: 180_000 }, () => {
  it("migrate without --apply reports would_migrate and writes nothing", async () => {
    const dir = dataDir();
    await seed(dir, 30, 1);
    await seed(dir, 10, null, 30);
    const before = fingerprint(dir);

    const run = await runEngram(["migrate"], { ENGRAM_DATA_DIR: dir });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    const report = JSON.parse(run.stdout) as MigrateReport;
    expect(Object.keys(report)).toEqual(["target", "dry_run", "would_migrate", "migrated", "failed", "passes", "backlog", "spared", "appeared"]);
    expect(report).toEqual({
      target: CURRENT_SCHEMA_VERSION,
      dry_run: true,
      would_migrate: 40,
      migrated: 0,
      failed: 0,
      passes: 0,
      backlog: 40,
      spared: 0,
      appeared: 0,
    });
    expect(fingerprint(dir)).toEqual(before);
  });

  it("a --timeout that runs out only as the last batch commits stops nothing; with batches left it is exit 6 and a rerun finishes", async () => {
    const dir = dataDir();
    await seed(dir, 30, 1);
    const one = await runEngram(["migrate", "--apply", "--timeout", "1ns", "--output", "json"], { ENGRAM_DATA_DIR: dir });
    expect({ code: one.code, stderr: one.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect((JSON.parse(one.stdout) as MigrateReport).migrated).toBe(30);

    const many = dataDir();
    await seed(many, 30, 1);
    const cut = await runEngram(["migrate", "--apply", "--timeout", "1ns", "--batch-size", "10"], { ENGRAM_DATA_DIR: many });
    expect({ code: cut.code, stdout: cut.stdout }).toEqual({ code: EXIT.timeout, stdout: "" });
    expect(cut.stderr).toBe("engram: --timeout ran out after 1 pass(es); the 10 record(s) migrated in committed batches stay migrated; run `engram migrate --apply` again to continue\n");
    const rest = await runEngram(["migrate", "--apply", "--output", "json"], { ENGRAM_DATA_DIR: many });
    expect(rest.code).toBe(EXIT.ok);
    expect((JSON.parse(rest.stdout) as MigrateReport).migrated).toBe(20);
  });

  it("migrate status prints the histogram of the file as JSON, read-only", async () => {
    const dir = dataDir();
    await seed(dir, 7, null);
    await seed(dir, 5, 1, 100);
    await seed(dir, 3, 2, 200);
    await seed(dir, 2, 9, 300);
    const before = fingerprint(dir);

    const run = await runEngram(["migrate", "status", "--output", "json"], { ENGRAM_DATA_DIR: dir });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });

    const raw = versionCounts(dir) as { v: number | null; n: number }[];
    const absent = raw.find((r) => r.v === null)?.n ?? 0;
    const known = raw.filter((r) => r.v !== null) as { v: number; n: number }[];
    const buckets = known.filter((r) => r.v <= CURRENT_SCHEMA_VERSION).map((r) => ({ version: r.v, count: r.n }));
    const future = known.filter((r) => r.v > CURRENT_SCHEMA_VERSION).map((r) => ({ version: r.v, count: r.n }));
    expect(JSON.parse(run.stdout)).toEqual({
      buckets,
      absent,
      future,
      future_total: future.reduce((s, b) => s + b.count, 0),
      total: raw.reduce((s, r) => s + r.n, 0),
      current_version: CURRENT_SCHEMA_VERSION,
      pending: absent + buckets.filter((b) => b.version < CURRENT_SCHEMA_VERSION).reduce((s, b) => s + b.count, 0),
    });
    expect(JSON.parse(run.stdout)).toMatchObject({ absent: 7, future_total: 2, total: 17, pending: 12 });
    expect(fingerprint(dir)).toEqual(before);
  });
});

describe("engram migrate usage refusals", { timeout: 180_000 }, () => {
  type Row = { name: string; args: string[]; line: string; lacks?: string };
  const HUGE = "123456789012345678901234567890";
  const beforeSub = (flag: string, sub: string) =>
    `engram: ${flag} must follow the subcommand (engram migrate ${sub} ${flag}); given before ${sub} it is a flag of engram migrate itself, so nothing was run`;
  const ROWS: Row[] = [
    { name: "revert without --to", args: ["migrate", "revert"], line: "field=to hint=required: --to <v> is required" },
    { name: "revert --to -1", args: ["migrate", "revert", "--to", "-1"], line: "field=to hint=format: --to must be a non-negative integer version" },
    { name: "revert --to 1.5", args: ["migrate", "revert", "--to", "1.5", "--apply"], line: "field=to hint=format: --to must be a non-negative integer version" },
    {
      name: "revert --to above the current version",
      args: ["migrate", "revert", "--to", String(CURRENT_SCHEMA_VERSION + 1), "--apply"],
      line: `field=to hint=out_of_range: --to is above this binary's current target version (${CURRENT_SCHEMA_VERSION}); there is nothing to revert past it`,
      lacks: String(CURRENT_SCHEMA_VERSION + 1),
    },
    {
      name: "revert --to past any safe integer",
      args: ["migrate", "revert", "--to", HUGE],
      line: `field=to hint=out_of_range: --to is above this binary's current target version (${CURRENT_SCHEMA_VERSION}); there is nothing to revert past it`,
      lacks: HUGE.slice(0, 8),
    },
    { name: "--apply before revert", args: ["migrate", "--apply", "revert", "--to", "1", "--output", "json"], line: beforeSub("--apply", "revert") },
    { name: "--timeout before revert", args: ["migrate", "--timeout", "1h", "revert", "--to", "1"], line: beforeSub("--timeout", "revert"), lacks: "1h" },
    { name: "--output before status", args: ["migrate", "--output", "json", "status"], line: beforeSub("--output", "status") },
    {
      name: "--batch-size before status, which has none",
      args: ["migrate", "--batch-size", "0", "status"],
      line: "engram: --batch-size is a flag of engram migrate, not of engram migrate status; nothing was run",
    },
    {
      name: "--no-snapshot before revert, which has none",
      args: ["migrate", "--no-snapshot", "revert", "--to", "1", "--apply"],
      line: "engram: --no-snapshot is a flag of engram migrate, not of engram migrate revert; nothing was run",
    },
    { name: "migrate --timeout without a unit", args: ["migrate", "--apply", "--timeout", "5"], line: "field=timeout hint=format: --timeout must be a duration such as 30s, 5m or 1h, or 0 for no limit" },
    { name: "migrate --batch-size 0", args: ["migrate", "--apply", "--batch-size", "0"], line: "field=batch-size hint=out_of_range: --batch-size must be an integer from 1 to 100000" },
  ];

  it.concurrent.for(ROWS)("$name exits 2 with its exact text before opening the store", async (row, { expect }) => {
    const dir = join(dataDir(), "never-created");
    // On the fake the run's Qdrant collection is configured too, and must not be asked anything either.
    const env = await childStoreEnv(dir);
    const run = await runEngram(row.args, env);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT.usage, stdout: "" });
    expect(run.stderr.split("\n")).toContain(row.line);
    if (row.lacks !== undefined) expect(run.stderr).not.toContain(row.lacks);
    expect(existsSync(dir)).toBe(false);
    expect(await qdrantRequestsFor(env)).toBe(0);
  });
});

describe.skipIf(ON_QDRANT_FAKE)(embeddedOnly("a migrate --apply killed mid-run", ON_FILE), { timeout: 300_000 }, () => {
  it("resumes on the next run: every record reaches the target, none is lost or duplicated, and no other key changes", async () => {
    const dir = dataDir();
    const n = 20_000;
    await seed(dir, n, 1);
    const seeded = storedPayloads(dir);
    expect(seeded.size).toBe(n);

    const first = startEngram(["migrate", "--apply", "--batch-size", "200"], { ENGRAM_DATA_DIR: dir, ENGRAM_PROGRESS: "always" });
    const progress = await first.line(/^engram: migrated \d+\/20000 \(\d+\/s\)$/);
    first.child.kill("SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");
    expect(killed.stdout).toBe("");
    expect(progress).toMatch(/^engram: migrated 200\/20000 /);

    // Progress is printed only after a batch commits, so the kill left a partly migrated store.
    const midway = versionCounts(dir) as { v: number; n: number }[];
    const atTarget = midway.find((r) => r.v === CURRENT_SCHEMA_VERSION)?.n ?? 0;
    expect(atTarget).toBeGreaterThanOrEqual(200);
    expect(atTarget).toBeLessThan(n);
    expect(midway.reduce((s, r) => s + r.n, 0)).toBe(n);

    const second = await runEngram(["migrate", "--apply"], { ENGRAM_DATA_DIR: dir });
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(second.stdout)).toMatchObject({
      target: CURRENT_SCHEMA_VERSION,
      dry_run: false,
      would_migrate: n - atTarget,
      migrated: n - atTarget,
      failed: 0,
      backlog: 0,
      appeared: 0,
    });

    expect(versionCounts(dir)).toEqual([{ v: CURRENT_SCHEMA_VERSION, n }]);
    const after = storedPayloads(dir);
    expect([...after.keys()]).toEqual([...seeded.keys()]);
    for (const [id, p] of after) {
      const before = seeded.get(id)!;
      expect(without(p, "schema_version", "content_bytes", "revision"), id).toEqual(without(before, "schema_version", "revision"));
      expect(p.content_bytes, id).toBe(Buffer.byteLength(String(before.content), "utf8"));
    }
  });
});

describe.skipIf(ON_QDRANT_FAKE)(embeddedOnly("a sweep large enough to share its work with a worker thread", ON_FILE), { timeout: 300_000 }, () => {
  it(`migrate --apply and revert --apply over ${SWEEP_WORKER_FROM} records exit 0 with every record moved and every other key kept`, async () => {
    const dir = dataDir();
    const n = SWEEP_WORKER_FROM;
    await seed(dir, n, 0);
    const seeded = storedPayloads(dir);

    const up = await runEngram(["migrate", "--apply"], { ENGRAM_DATA_DIR: dir });
    expect({ code: up.code, stderr: up.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(up.stdout)).toMatchObject({ would_migrate: n, migrated: n, failed: 0, backlog: 0, appeared: 0 });
    expect(versionCounts(dir)).toEqual([{ v: CURRENT_SCHEMA_VERSION, n }]);
    const migrated = storedPayloads(dir);
    const ids = withDb(dir, (db) => db.prepare("SELECT short_id FROM records ORDER BY rid").pluck().all() as string[]);
    expect(ids.every((x, i) => i === 0 || ids[i - 1]! < x)).toBe(true);
    for (const [id, p] of migrated) {
      const before = seeded.get(id)!;
      expect(without(p, "schema_version", "content_bytes", "revision", "short_id"), id).toEqual(without(before, "schema_version", "revision", "short_id"));
      expect(p.content_bytes, id).toBe(Buffer.byteLength(String(before.content), "utf8"));
    }

    const down = await runEngram(["migrate", "revert", "--to", "1", "--apply"], { ENGRAM_DATA_DIR: dir });
    expect({ code: down.code, stderr: down.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(down.stdout)).toMatchObject({ applied: true, reverted: n, failed: 0, backlog: 0 });
    expect(versionCounts(dir)).toEqual([{ v: 1, n }]);
    for (const [id, p] of storedPayloads(dir)) {
      expect(without(p, "revision"), id).toEqual({ ...without(migrated.get(id)!, "content_bytes", "revision"), schema_version: 1 });
    }
  });
});
