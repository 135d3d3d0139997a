/**
 * `engram prune-expired`, `engram spine-review purge` and `engram
 * spine-review consolidate` run as the real binary, once on the embedded
 * store (a data directory seeded in this process) and once on the Qdrant
 * store (ENGRAM_QDRANT_URL at the loopback fake started here, every request
 * checked against Qdrant's own schemas). What a run deleted is read from
 * the SQLite file or the fake's state, not through the code under test.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../src/store/embedded/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, ruleError } from "../src/argerror/index.js";
import type { MemoryRecord } from "../src/model/record.js";
import { DELETE_BATCH, type ConsolidateReport, type PruneReport, type PurgeReport } from "../src/operator/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import type { Store } from "../src/store/store.js";
import { runEngram } from "./helpers/run-engram.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

/** The local embedder's dimension, which the CLI opens the store with. */
const DIM = 512;
const NOW_S = Math.floor(Date.now() / 1000);
const DAY = 86_400;
const ago = (s: number) => new Date((NOW_S - s) * 1000).toISOString();

/** A unit vector on axis `axis`, tilted towards `axis + 1` by `tilt`. */
function vec(axis: number, tilt = 0): Float32Array {
  const v = new Float32Array(DIM);
  v[axis] = 1;
  v[axis + 1] = tilt;
  const n = Math.hypot(1, tilt);
  return v.map((x) => x / n);
}

const rec = (i: number, extra: Partial<MemoryRecord> = {}): MemoryRecord =>
  syntheticRecord(i, { short_id: `L${String(i).padStart(9, "0")}`, scope: "repo:a", created_at: ago(200 * DAY), ...extra });
const id = (i: number) => rec(i).id;

type Backend = {
  name: string;
  /** A fresh store; `env` is what a child needs to open it. */
  fresh(): Promise<{ env: Record<string, string>; open: () => Promise<Store>; ids: () => string[]; requests: () => number }>;
};

let fake: QdrantFake;
const dirs: string[] = [];
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  fake = await startQdrantFake({ warn: () => {} });
});

afterAll(async () => {
  expect(fake.schemaViolations).toEqual([]);
  await fake.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const BACKENDS: Backend[] = [
  {
    name: "the embedded store",
    fresh: async () => {
      const dir = tmp("engram-lifecycle-");
      EmbeddedStore.open({ dataDir: dir, dim: DIM }).close();
      const ids = () => {
        const db = openSqlite(join(dir, "engram.db"), { readonly: true });
        try {
          return (db.prepare("SELECT id FROM records ORDER BY id").all() as { id: string }[]).map((r) => r.id);
        } finally {
          db.close();
        }
      };
      return { env: { ENGRAM_DATA_DIR: dir }, open: async () => EmbeddedStore.open({ dataDir: dir, dim: DIM }), ids, requests: () => 0 };
    },
  },
  {
    name: "the Qdrant store (fake)",
    fresh: async () => {
      const alias = QdrantStore.uniqueCollection("lifecycle");
      await (await QdrantStore.open({ url: fake.url, collection: alias, dim: DIM })).close();
      const env = { ENGRAM_QDRANT_URL: fake.url, ENGRAM_QDRANT_COLLECTION: alias, ENGRAM_DATA_DIR: join(tmp("engram-lifecycle-qd-"), "unused") };
      const ids = () => [...fake.state.resolve(alias).points.values()].map((p) => String(p.id)).sort();
      const physical = () => fake.state.resolve(alias).name;
      return {
        env,
        open: async () => QdrantStore.open({ url: fake.url, collection: alias, dim: DIM }),
        ids,
        requests: () => fake.requests.filter((r) => r.collection === alias || r.collection === physical()).length,
      };
    },
  },
];

async function seed(open: () => Promise<Store>, rows: readonly { r: MemoryRecord; v?: Float32Array }[]): Promise<void> {
  const store = await open();
  try {
    await store.importBatch(rows.map(({ r, v }) => ({ record: r, vector: v ?? vec(10 + (Number(r.id.slice(-4)) % 400)), version: CURRENT_SCHEMA_VERSION })));
  } finally {
    await store.close();
  }
}

const json = <T>(run: { code: number | null; stdout: string; stderr: string }): T => {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
  return JSON.parse(run.stdout) as T;
};

describe.concurrent.each(BACKENDS)("lifecycle sweeps on $name", { timeout: 120_000 }, (backend) => {
  it("prune-expired previews, then deletes lapsed records past the grace, and with no grace every lapsed one, never an archived one", async () => {
    const s = await backend.fresh();
    await seed(s.open, [
      { r: rec(1, { not_after: NOW_S - 2 * 3600 }) },
      { r: rec(2, { not_after: NOW_S - 30 * DAY, scope: "repo:b" }) },
      { r: rec(3, { not_after: NOW_S - 30 * DAY, archived_at: ago(DAY) }) },
      { r: rec(4) },
      { r: rec(5, { not_before: NOW_S + DAY }) },
    ]);
    const all = [1, 2, 3, 4, 5].map(id);

    const preview = json<PruneReport>(await runEngram(["prune-expired", "--output", "json"], s.env));
    expect(preview).toMatchObject({ dry_run: true, older_than_seconds: 0, found: 2, deleted: 0, scopes: [{ scope: "repo:a", found: 1, deleted: 0 }, { scope: "repo:b", found: 1, deleted: 0 }] });
    expect(s.ids()).toEqual(all);

    const graced = json<PruneReport>(await runEngram(["prune-expired", "--older-than", "24h", "--apply", "--output", "json"], s.env));
    expect(graced).toMatchObject({ dry_run: false, older_than_seconds: 86_400, found: 1, deleted: 1, scopes: [{ scope: "repo:b", found: 1, deleted: 1 }] });
    expect(s.ids()).toEqual([1, 3, 4, 5].map(id));

    const rest = await runEngram(["prune-expired", "--apply", "--output", "json"], { ...s.env, ENGRAM_PROGRESS: "always" });
    expect(rest.code).toBe(EXIT.ok);
    expect(rest.stderr.split("\n")).toContainEqual(expect.stringMatching(/^engram: deleted 1\/1 \(\d+\/s\)$/));
    expect(JSON.parse(rest.stdout)).toMatchObject({ found: 1, deleted: 1 });
    expect(s.ids()).toEqual([3, 4, 5].map(id));

    const none = json<PruneReport>(await runEngram(["prune-expired", "--output", "json"], s.env));
    expect(none).toMatchObject({ found: 0, deleted: 0, scopes: [] });
  });

  it("purge deletes each class past its default window (archived 90 days, superseded and expired at once), never a discovery or rule", async () => {
    const s = await backend.fresh();
    await seed(s.open, [
      { r: rec(11, { archived_at: ago(100 * DAY) }) },
      { r: rec(12, { archived_at: ago(10 * DAY) }) },
      { r: rec(13, { superseded_by: id(14) }) },
      { r: rec(14, { supersedes: [id(13)] }) },
      { r: rec(15, { superseded_by: id(99) }) },
      { r: rec(16, { not_after: NOW_S - 60 }) },
      { r: rec(17, { category: "discovery", scope: "discovery:repo:x", archived_at: ago(200 * DAY) }) },
      { r: rec(18, { category: "rule", scope: "rule:repo:x", archived_at: ago(200 * DAY) }) },
      { r: rec(19) },
    ]);
    const all = [11, 12, 13, 14, 15, 16, 17, 18, 19].map(id);

    const preview = json<PurgeReport>(
      await runEngram(["spine-review", "purge", "--class", "superseded", "--class", "expired,archived", "--output", "json"], s.env),
    );
    expect(preview).toMatchObject({ dry_run: true, classes: ["superseded", "expired", "archived"], scope: null, eligible: 3, deleted: 0, appeared: 0 });
    expect(preview.results.map((r) => [r.id, r.class, r.outcome])).toEqual([
      [id(11), "archived", "eligible"],
      [id(13), "superseded", "eligible"],
      [id(16), "expired", "eligible"],
    ]);
    expect(s.ids()).toEqual(all);

    const archived = json<PurgeReport>(await runEngram(["spine-review", "purge", "--class", "archived", "--apply", "--output", "json"], s.env));
    expect(archived).toMatchObject({ dry_run: false, eligible: 1, deleted: 1, spared: 0, appeared: 0 });
    expect(s.ids()).toEqual(all.filter((x) => x !== id(11)));

    const rest = json<PurgeReport>(await runEngram(["spine-review", "purge", "--class", "superseded,expired", "--all-scopes", "--apply", "--output", "json"], s.env));
    expect(rest.results.map((r) => [r.id, r.outcome])).toEqual([
      [id(13), "deleted"],
      [id(16), "deleted"],
    ]);
    expect(s.ids()).toEqual([12, 14, 15, 17, 18, 19].map(id));

  });

  it("a record that becomes eligible between the apply's two derivations is reported as appeared and kept", async () => {
    const s = await backend.fresh();
    await seed(s.open, [{ r: rec(21, { not_after: NOW_S - 3600 }) }, { r: rec(22) }]);
    const handshake = tmp("engram-purge-handshake-");
    const running = runEngram(["spine-review", "purge", "--class", "expired", "--apply", "--output", "json"], { ...s.env, ENGRAM_TEST_PURGE_HANDSHAKE: handshake });
    while (!existsSync(join(handshake, "derived"))) await new Promise((r) => setTimeout(r, 20));
    await seed(s.open, [{ r: rec(23, { not_after: NOW_S - 7200 }) }]);
    writeFileSync(join(handshake, "resume"), "");

    const report = json<PurgeReport>(await running);
    expect(report).toMatchObject({ eligible: 1, deleted: 1, spared: 0, appeared: 1 });
    expect(report.results.map((r) => [r.id, r.outcome])).toEqual([
      [id(21), "deleted"],
      [id(23), "appeared"],
    ]);
    expect(s.ids()).toEqual([22, 23].map(id));
  });

  it("consolidate ranks planted near-duplicates across two scopes, keeps to one scope when asked, and writes nothing", async () => {
    const s = await backend.fresh();
    await seed(s.open, [
      { r: rec(31, { scope: "repo:one" }), v: vec(0) },
      { r: rec(32, { scope: "repo:two" }), v: vec(0, 0.02) },
      { r: rec(33, { scope: "repo:one" }), v: vec(3) },
      { r: rec(34, { scope: "repo:one" }), v: vec(3, 0.1) },
      { r: rec(35, { scope: "repo:one", archived_at: ago(DAY) }), v: vec(3, 0.01) },
      ...[36, 37, 38, 39].map((i) => ({ r: rec(i, { scope: i % 2 ? "repo:one" : "repo:two" }), v: vec(20 + 4 * i) })),
    ]);
    const before = s.ids();

    const all = await runEngram(["spine-review", "consolidate", "--all-scopes", "--min-score", "0.9", "--output", "json"], { ...s.env, ENGRAM_PROGRESS: "always" });
    expect(all.code).toBe(EXIT.ok);
    expect(all.stderr).toMatch(/^engram: compared 8\/8 \(\d+\/s\)$/m);
    const report = JSON.parse(all.stdout) as ConsolidateReport;
    expect(report).toMatchObject({ scope: null, top_k: 5, min_score: 0.9, records: 8, pairs: 2 });
    expect(report.results.map((p) => [p.a_id, p.a_scope, p.b_id, p.b_scope])).toEqual([
      [id(31), "repo:one", id(32), "repo:two"],
      [id(33), "repo:one", id(34), "repo:one"],
    ]);
    expect(report.results[0]!.score).toBeGreaterThan(report.results[1]!.score);
    expect(report.results[0]).toMatchObject({ a_short_id: "L000000031", b_short_id: "L000000032" });

    const one = json<ConsolidateReport>(await runEngram(["spine-review", "consolidate", "--scope", "repo:one", "--top-k", "1", "--min-score", "0.9", "--output", "json"], s.env));
    expect(one.results.map((p) => [p.a_id, p.b_id])).toEqual([[id(33), id(34)]]);

    expect(s.ids()).toEqual(before);
  });

  // The budget is checked by the CLI's loop between the store's batches, the same over either store; seeding two batches' worth onto the fake is the slow part.
  it.runIf(backend.name === "the embedded store")("a --timeout that runs out stops prune and purge after a committed batch with exit 6, and a rerun deletes the rest (the embedded store: the loop is the CLI's)", async () => {
    const s = await backend.fresh();
    // Ten more records than a delete batch holds of each class, so each verb has a second batch to stop before.
    const lapsed = Array.from({ length: DELETE_BATCH + 10 }, (_, n) => ({ r: rec(10_000 + n, { not_after: NOW_S - 3600 }) }));
    const archived = Array.from({ length: DELETE_BATCH + 10 }, (_, n) => ({ r: rec(20_000 + n, { archived_at: ago(100 * DAY) }) }));
    await seed(s.open, [...lapsed, ...archived, { r: rec(1) }]);
    const total = 2 * (DELETE_BATCH + 10) + 1;

    const pruned = await runEngram(["prune-expired", "--apply", "--timeout", "1ms", "--output", "json"], s.env);
    expect({ code: pruned.code, stdout: pruned.stdout, stderr: pruned.stderr }).toEqual({
      code: EXIT.timeout,
      stdout: "",
      stderr: `engram: --timeout ran out after ${DELETE_BATCH} record(s) were deleted in committed batches, and stay deleted; run \`engram prune-expired --apply\` again to continue\n`,
    });
    expect(s.ids()).toHaveLength(total - DELETE_BATCH);
    expect(json<PruneReport>(await runEngram(["prune-expired", "--apply", "--output", "json"], s.env))).toMatchObject({ found: 10, deleted: 10 });

    const purged = await runEngram(["spine-review", "purge", "--class", "archived", "--apply", "--timeout", "1ms", "--output", "json"], s.env);
    expect({ code: purged.code, stdout: purged.stdout, stderr: purged.stderr }).toEqual({
      code: EXIT.timeout,
      stdout: "",
      stderr: `engram: --timeout ran out after ${DELETE_BATCH} record(s) were deleted in committed batches, and stay deleted; run \`engram spine-review purge --apply …\` again to continue\n`,
    });
    expect(json<PurgeReport>(await runEngram(["spine-review", "purge", "--class", "archived", "--apply", "--output", "json"], s.env))).toMatchObject({ eligible: 10, deleted: 10 });
    expect(s.ids()).toEqual([id(1)]);
  });

  it("a --timeout that runs out only after the last batch committed stopped nothing: the run reports and exits 0", async () => {
    const s = await backend.fresh();
    await seed(s.open, [{ r: rec(41, { not_after: NOW_S - 3600 }) }, { r: rec(42) }]);
    const done = await runEngram(["prune-expired", "--apply", "--timeout", "1ms", "--output", "json"], s.env);
    expect(json<PruneReport>(done)).toMatchObject({ found: 1, deleted: 1 });
    expect(s.ids()).toEqual([id(42)]);
  });
});

describe("spine-review purge's filter path", { timeout: 60_000 }, () => {
  it("without --scope or --all-scopes exits 2 with the rule's envelope before the store is touched", async () => {
    const s = await BACKENDS[1]!.fresh();
    const before = s.requests();
    const run = await runEngram(["spine-review", "purge", "--class", "archived", "--tags", "t1"], s.env);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: EXIT.usage, stdout: "", stderr: `${ruleError("purge-filter-requires-scope").message}\n` });
    expect(ruleError("purge-filter-requires-scope").message).toBe(
      "field=scope,category,tags,older-than hint=conditional_required: the free-form filter path requires an explicit --scope or --all-scopes: category or tags always engage it, and older-than engages it when no class is selected",
    );
    expect(s.requests()).toBe(before);
  });
});
