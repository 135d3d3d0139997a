/**
 * Migration sweeps that share their computing with a worker thread (see
 * SweepChunks). The stores here lower `sweepWorkerFrom` so a few thousand
 * records take that path; each test also checks a worker really started.
 */
import { copyFileSync, existsSync, mkdtempSync } from "node:fs";
import { openSqlite } from "../src/store/embedded/index.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { MemoryRecord } from "../src/core/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { migrate, revert, RevertRefusedError } from "../src/store/migrations/index.js";
import { SweepHelper } from "../src/store/embedded/sweep/sweep-helper.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

const V = new Float32Array([1, 0, 0, 0]);
/** Three chunks of 2048 and a bit: every chunk boundary is crossed, and both threads get chunks. */
const N = 6500;

function open(dir: string, worker: boolean): EmbeddedStore {
  return EmbeddedStore.open({ dataDir: dir, dim: 4, sweepWorkerFrom: worker ? 1 : Number.POSITIVE_INFINITY });
}

function fresh(worker: boolean): { dir: string; store: EmbeddedStore } {
  const dir = mkdtempSync(join(tmpdir(), "engram-sweepw-"));
  return { dir, store: open(dir, worker) };
}

function seed(store: EmbeddedStore, n: number, version: number): void {
  store.transaction(() => {
    for (let i = 0; i < n; i++) store.writeRecord(syntheticRecord(i, version === 0 ? {} : { short_id: `S${String(i).padStart(9, "0")}` }), V, version);
  });
}

function rows(store: EmbeddedStore): { rid: number; short_id: string | null; schema_version: number | null; p: Record<string, unknown> }[] {
  return (store.database.prepare("SELECT rid, short_id, schema_version, payload FROM records ORDER BY rid").all() as { rid: number; short_id: string | null; schema_version: number | null; payload: string }[]).map(
    (r) => ({ rid: r.rid, short_id: r.short_id, schema_version: r.schema_version, p: JSON.parse(r.payload) as Record<string, unknown> }),
  );
}

/** A payload without what each sweep write mints anew. */
function kept(p: Record<string, unknown>): Record<string, unknown> {
  const { revision: _r, short_id: _s, ...rest } = p;
  return rest;
}

async function started<T>(fn: () => Promise<T>): Promise<{ result: T; workers: number }> {
  const before = SweepHelper.started;
  const result = await fn();
  return { result, workers: SweepHelper.started - before };
}

/** The same sweep over two stores seeded alike, one alone on the main thread and one with a worker: both reports and both stores' rows. */
async function sideBySide<T>(version: number, sweep: (store: EmbeddedStore) => Promise<T>) {
  const alone = fresh(false);
  const shared = fresh(true);
  seed(alone.store, N, version);
  seed(shared.store, N, version);
  const a = await started(() => sweep(alone.store));
  const b = await started(() => sweep(shared.store));
  const out = { a, b, ra: rows(alone.store), rb: rows(shared.store) };
  await alone.store.close();
  await shared.store.close();
  return out;
}

describe("a sweep shared with a worker thread", () => {
  it("migrates to exactly what the main thread alone writes, with every id minted in ascending record order", async () => {
    const { a, b, ra, rb } = await sideBySide(0, (store) => migrate(store, { target: 2, apply: true, batch: 2048 }));
    expect(a.workers).toBe(0);
    expect(b.workers).toBe(1);
    expect(b.result).toEqual(a.result);
    expect(b.result).toMatchObject({ migrated: N, failed: 0, backlog: 0 });
    expect(rb.map((r) => kept(r.p))).toEqual(ra.map((r) => kept(r.p)));
    expect(rb.every((r) => r.schema_version === 2 && r.short_id === r.p.short_id && /^[0-9A-HJKMNP-TV-Z]{10}$/.test(r.short_id!))).toBe(true);
    expect(rb.every((r, i) => i === 0 || rb[i - 1]!.short_id! < r.short_id!)).toBe(true);
  });

  it("refuses the whole call before any write when the registry has no chain for one record, wherever that record is", async () => {
    for (const at of [10, N - 10]) {
      const { store } = fresh(true);
      seed(store, N, 0);
      // A version no step starts from: the shipped registry refuses it.
      store.database.prepare("UPDATE records SET schema_version = -1 WHERE rid = (SELECT rid FROM records ORDER BY rid LIMIT 1 OFFSET ?)").run(at);
      const before = rows(store);
      const run = await started(() => migrate(store, { target: 2, apply: true, batch: 2048 }).catch((e: unknown) => e));
      expect(run.workers).toBe(1);
      expect(run.result).toBeInstanceOf(Error);
      expect((run.result as Error).message).toBe("no step chain from version -1 to 2");
      expect(rows(store)).toEqual(before);
      await store.close();
    }
  });

  it("of two records it cannot migrate, names the first in record order, as one thread alone would", async () => {
    const { store } = fresh(true);
    seed(store, N, 0);
    const at = store.database.prepare("UPDATE records SET schema_version = ? WHERE rid = (SELECT rid FROM records ORDER BY rid LIMIT 1 OFFSET ?)");
    at.run(-2, 3000);
    at.run(-1, N - 5);
    await expect(migrate(store, { target: 2, apply: true })).rejects.toThrow("no step chain from version -2 to 2");
    await store.close();
  });

  it("migrates a record another connection rewrites after the preflight from what it holds now", async () => {
    const { dir, store } = fresh(true);
    const server = open(dir, false);
    seed(store, N, 1);
    const late = syntheticRecord(N - 3, { short_id: `S${String(N - 3).padStart(9, "0")}` });
    let raced = false;
    const r = await migrate(store, {
      target: 2,
      apply: true,
      batch: 1000,
      onProgress: () => {
        if (raced) return;
        raced = true;
        server.writeRecord({ ...late, content: "rewritten by the server" }, V, 1);
      },
    });
    expect(r).toMatchObject({ migrated: N, failed: 0, backlog: 0 });
    const after = rows(store).find((x) => x.p.id === late.id)!;
    expect(after.p).toMatchObject({ content: "rewritten by the server", content_bytes: Buffer.byteLength("rewritten by the server"), schema_version: 2 });
    await server.close();
    await store.close();
  });

  it("reverts to exactly what the main thread alone writes", async () => {
    const { a, b, ra, rb } = await sideBySide(2, (store) => revert(store, { to: 1, apply: true, batch: 2048 }));
    expect(a.workers).toBe(0);
    expect(b.workers).toBe(1);
    expect(b.result).toEqual(a.result);
    expect(b.result).toMatchObject({ applied: true, reverted: N, failed: 0, backlog: 0 });
    expect(rb.map((r) => ({ ...r.p, revision: undefined }))).toEqual(ra.map((r) => ({ ...r.p, revision: undefined })));
    expect(rb.every((r) => r.schema_version === 1 && !("content_bytes" in r.p))).toBe(true);
  });

  it("keeps a write another connection makes mid-revert to a record whose rewrite is already staged", async () => {
    const { dir, store } = fresh(true);
    const server = open(dir, false);
    seed(store, N, 2);
    // In the first chunk, which is staged before the first pass, and past the 1000 rows that pass writes.
    const late = syntheticRecord(1500, { short_id: `S${String(1500).padStart(9, "0")}` });
    let raced = false;
    const r = await revert(store, {
      to: 1,
      apply: true,
      batch: 1000,
      onProgress: () => {
        if (raced) return;
        raced = true;
        server.writeRecord({ ...late, content: "rewritten by the server" }, V, 2);
      },
    });
    expect(r).toMatchObject({ applied: true, reverted: N, failed: 0, backlog: 0 });
    const after = rows(store).find((x) => x.p.id === late.id)!;
    expect(after.schema_version).toBe(1);
    expect(after.p.content).toBe("rewritten by the server");
    expect(after.p).not.toHaveProperty("content_bytes");
    await server.close();
    await store.close();
  });

  it("refuses mid-revert at a record that appears with no way back, with every earlier record reverted, and closes with no WAL left behind", async () => {
    const { dir, store } = fresh(true);
    seed(store, N, 2);
    let injected = false;
    const err = await revert(store, {
      to: 1,
      apply: true,
      batch: 2048,
      onProgress: () => {
        if (injected) return;
        injected = true;
        store.writeRecord(syntheticRecord(90_000), V, 7);
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RevertRefusedError);
    const refused = err as RevertRefusedError;
    expect(refused.envelope).toBe(
      "field=record_version hint=unsupported: 1 record(s) at version 7 have no reachable chain to target 1; recovery is a collection snapshot",
    );
    expect(refused.partial).toBe(true);
    expect(refused.report).toMatchObject({ applied: false, reversible: false, candidates: 1, reverted: N, failed: 0, backlog: 1, refusal: refused.envelope });
    await store.close();
    // The worker closed its connection before the store's, so the store's close was the last one.
    expect(existsSync(join(dir, "engram.db-wal"))).toBe(false);
  });
});

describe("a sweep's checkpoints", () => {
  it("run on another thread while the passes write, and once a sweep returns its writes are in the database file itself", async () => {
    const { dir, store } = fresh(false);
    seed(store, 3000, 0);
    // Everything so far is in the file, so the copy below shows only what the sweep's checkpoints copied.
    store.database.pragma("wal_checkpoint(TRUNCATE)");
    const during: unknown[] = [];
    await migrate(store, { target: 2, apply: true, batch: 500, onProgress: () => void during.push(store.database.pragma("wal_autocheckpoint", { simple: true })) });
    // Between passes the sweep's own connection checkpoints nothing; afterwards it does again, past 16384 WAL pages.
    expect(new Set(during)).toEqual(new Set([0]));
    expect(store.database.pragma("wal_autocheckpoint", { simple: true })).toBe(16384);
    const copy = mkdtempSync(join(tmpdir(), "engram-sweepw-copy-"));
    copyFileSync(join(dir, "engram.db"), join(copy, "engram.db"));
    const file = openSqlite(join(copy, "engram.db"), { readonly: true });
    expect(file.prepare("SELECT schema_version AS v, count(*) AS n FROM records GROUP BY schema_version").all()).toEqual([{ v: 2, n: 3000 }]);
    file.close();
    await store.close();
  });
});
