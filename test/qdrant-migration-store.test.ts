/**
 * The Qdrant migration store's promises that need a forced interleaving:
 * the loopback fake parks a sweep's write while another server writes the
 * same record, so the order is certain rather than likely.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MemoryRecord } from "../src/model/record.js";
import { migrate } from "../src/store/migrations/index.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

const DIM = 8;
const VECTOR = Float32Array.from({ length: DIM }, (_, i) => (i === 0 ? 1 : 0));
const rec = (i: number): MemoryRecord => syntheticRecord(i, { short_id: `M${String(i).padStart(9, "0")}` });

let fake: QdrantFake;
let sweeper: QdrantStore;
let server: QdrantStore;

beforeEach(async () => {
  fake = await startQdrantFake({ warn: () => {} });
  const collection = QdrantStore.uniqueCollection("mig");
  sweeper = await QdrantStore.open({ url: fake.url, collection, dim: DIM });
  server = await QdrantStore.open({ url: fake.url, collection, dim: DIM });
  await sweeper.importBatch([1, 2, 3].map((i) => ({ record: rec(i), vector: VECTOR, version: 1 })));
});

afterEach(async () => {
  fake.holds.releaseAll();
  await sweeper.close();
  await server.close();
  expect(fake.schemaViolations).toEqual([]);
  await fake.close();
});

describe("the migration store on Qdrant", () => {
  it("a record another server writes between a pass's read and its write keeps that write and stays pending for the next pass", async () => {
    const m = sweeper.migrationStore();
    expect(await m.pinBelow(CURRENT_SCHEMA_VERSION)).toBe(3);
    const parked = fake.holds.hold({ operation: "batch_update" });
    const pass = m.rewritePass({ pinnedBelow: CURRENT_SCHEMA_VERSION }, { rows: 10, bytes: 1 << 20 }, CURRENT_SCHEMA_VERSION, (row) => row.payload);
    await parked.reached;
    // A server counts a read of record 2 meanwhile: a write that keeps the record's version.
    server.noteAccess(rec(2).id, "2026-06-01T12:00:00.000Z");
    await server.flushAccess();
    parked.release();

    // Records 1 and 3 are written; record 2 changed after the read, so its rewrite did not land.
    expect(await pass).toEqual(["ok", "ok"]);
    expect(await m.pendingCount()).toBe(1);
    expect(await sweeper.getRaw(rec(2).id)).toMatchObject({ schema_version: 1, access_count: 1 });

    const next = await m.rewritePass({ pinnedBelow: CURRENT_SCHEMA_VERSION }, { rows: 10, bytes: 1 << 20 }, CURRENT_SCHEMA_VERSION, (row) => row.payload);
    expect(next).toEqual(["ok"]);
    expect(await m.pendingCount()).toBe(0);
    expect(await sweeper.getRaw(rec(2).id)).toMatchObject({ schema_version: CURRENT_SCHEMA_VERSION, access_count: 1, last_accessed_at: "2026-06-01T12:00:00.000Z" });
  });

  it("a rewrite that landed and was built on before the pass read it back counts as written, and the later write stands", async () => {
    const m = sweeper.migrationStore();
    expect(await m.pinBelow(CURRENT_SCHEMA_VERSION)).toBe(3);
    const landed = fake.holds.hold({ operation: "batch_update" }, { phase: "before-response" });
    const pass = m.rewritePass({ pinnedBelow: CURRENT_SCHEMA_VERSION }, { rows: 10, bytes: 1 << 20 }, CURRENT_SCHEMA_VERSION, (row) => row.payload);
    await landed.reached;
    // A server counts a read of record 2 on top of its rewritten version before the sweep hears back.
    server.noteAccess(rec(2).id, "2026-06-01T12:00:00.000Z");
    await server.flushAccess();
    landed.release();

    expect(await pass).toEqual(["ok", "ok", "ok"]);
    expect(await m.pendingCount()).toBe(0);
    expect(await sweeper.getRaw(rec(2).id)).toMatchObject({ schema_version: CURRENT_SCHEMA_VERSION, access_count: 1 });
  });

  it("a record deleted while its pass was in flight stays deleted and is reported gone", async () => {
    const m = sweeper.migrationStore();
    await m.pinBelow(CURRENT_SCHEMA_VERSION);
    const parked = fake.holds.hold({ operation: "batch_update" });
    const pass = m.rewritePass({ pinnedBelow: CURRENT_SCHEMA_VERSION }, { rows: 10, bytes: 1 << 20 }, CURRENT_SCHEMA_VERSION, (row) => row.payload);
    await parked.reached;
    expect(await server.delete(rec(3).id)).toBe(true);
    parked.release();
    expect(await pass).toEqual(["ok", "ok", "gone"]);
    expect(await sweeper.getRaw(rec(3).id)).toBeUndefined();
    expect(await m.pendingCount()).toBe(0);
  });

  it("a write batch Qdrant refuses reports the failure for every row that did not land, which stay pending, and the loop then converges", async () => {
    fake.faults.inject({ match: { operation: "batch_update" }, fault: { kind: "status", status: 500 } });
    const m = sweeper.migrationStore();
    await m.pinBelow(CURRENT_SCHEMA_VERSION);
    const failed = await m.rewritePass({ pinnedBelow: CURRENT_SCHEMA_VERSION }, { rows: 10, bytes: 1 << 20 }, CURRENT_SCHEMA_VERSION, (row) => row.payload);
    expect(failed).toHaveLength(3);
    for (const o of failed) expect(o).toBeInstanceOf(Error);
    expect(await m.pendingCount()).toBe(3);
    expect(await migrate(m, { target: CURRENT_SCHEMA_VERSION, apply: true })).toMatchObject({ would_migrate: 3, migrated: 3, failed: 0, backlog: 0 });
  });

  it("a rewrite that throws writes nothing of its batch", async () => {
    const m = sweeper.migrationStore();
    await m.pinBelow(CURRENT_SCHEMA_VERSION);
    const boom = new Error("step refused");
    let seen = 0;
    const err = await m
      .rewritePass({ pinnedBelow: CURRENT_SCHEMA_VERSION }, { rows: 10, bytes: 1 << 20 }, CURRENT_SCHEMA_VERSION, (row) => {
        if (++seen === 3) throw boom;
        return row.payload;
      })
      .catch((e: unknown) => e);
    expect(err).toBe(boom);
    expect(fake.requests.filter((r) => r.operation === "batch_update")).toEqual([]);
    expect(await m.pendingCount()).toBe(3);
  });
});
