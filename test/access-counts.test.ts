import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger } from "../src/core/index.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { AccessCoalescer, type AccessEntry } from "../src/store/embedded/access-coalescer.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

const DIM = 8;

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "engram-access-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const VECTOR = new Float32Array(DIM).fill(0.5);

function coreOver(store: EmbeddedStore, now = () => new Date("2026-06-01T12:00:00.000Z")) {
  return createCore({ store, embedder: new FakeEmbedder(DIM), limits: DEFAULT_LIMITS, now, log: silentLogger });
}

/** The stored payload, read through a connection of its own. */
function stored(dir: string, id: string): Record<string, unknown> {
  const other = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  try {
    const row = other.database.prepare("SELECT payload FROM records WHERE id = ?").get(id) as { payload: string };
    return JSON.parse(row.payload) as Record<string, unknown>;
  } finally {
    void other.close();
  }
}

describe("access counts", () => {
  it("a get writes nothing, and every counted get is on disk after a clean close", async () => {
    const dir = dataDir();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const rec = syntheticRecord(1, { short_id: "ACCESS0001" });
    await store.create(rec, VECTOR);
    const core = coreOver(store);

    for (let i = 0; i < 7; i++) await core.getMemory(ANONYMOUS, { id: rec.id });
    expect(stored(dir, rec.id).access_count).toBe(0);
    await store.close();

    const reopened = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const after = await reopened.getRaw(rec.id);
    expect(after?.access_count).toBe(7);
    expect(after?.last_accessed_at).toBe("2026-06-01T12:00:00.000Z");
    await reopened.close();
  });

  it("an update landing between a get and the flush keeps its content, and the count still grows", async () => {
    const dir = dataDir();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const rec = syntheticRecord(2, { short_id: "ACCESS0002", content: "before" });
    await store.create(rec, VECTOR);
    const core = coreOver(store);

    await core.getMemory(ANONYMOUS, { id: rec.id });
    // Another process (a second connection to the same file) rewrites the record meanwhile.
    const writer = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await writer.replace({ ...(await writer.getRaw(rec.id))!, content: "written by another process", tags: ["kept"] });
    await writer.close();
    // And this one updates it through the core (which counts the update as an access too).
    await core.updateMemory(ANONYMOUS, { id: rec.id, tags: ["kept", "also"], update_mask: ["tags"] }, "connect");
    await store.flushAccess();

    const after = stored(dir, rec.id);
    expect(after.content).toBe("written by another process");
    expect(after.tags).toEqual(["kept", "also"]);
    expect(after.access_count).toBe(2);
    await store.close();
  });

  it("a record deleted before the flush stays deleted", async () => {
    const dir = dataDir();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const rec = syntheticRecord(3, { short_id: "ACCESS0003" });
    await store.create(rec, VECTOR);
    await coreOver(store).getMemory(ANONYMOUS, { id: rec.id });
    await store.delete(rec.id);
    await store.flushAccess();
    expect(await store.getRaw(rec.id)).toBeUndefined();
    await store.close();
  });

  it("a read does not migrate a record: the flush keeps its schema version", async () => {
    const dir = dataDir();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const rec = syntheticRecord(4, { short_id: "ACCESS0004" });
    store.transaction(() => store.writeRecord(rec, VECTOR, 1));
    await coreOver(store).getMemory(ANONYMOUS, { id: rec.id });
    await store.close();
    const after = stored(dir, rec.id);
    expect(after).toMatchObject({ schema_version: 1, access_count: 1 });
    expect(after).not.toHaveProperty("content_bytes");
  });
});

describe("the access coalescer", () => {
  afterEach(() => void vi.useRealTimers());

  it("writes the reads of an interval as one batch, one entry per record with the latest time", () => {
    vi.useFakeTimers();
    const batches: AccessEntry[][] = [];
    const c = new AccessCoalescer((e) => void batches.push(e), { intervalMs: 1000, maxPending: 100 });
    c.note("a", "2026-01-01T00:00:02.000Z");
    c.note("b", "2026-01-01T00:00:01.000Z");
    c.note("a", "2026-01-01T00:00:01.500Z");
    vi.advanceTimersByTime(999);
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(1);
    // The interval has run out; the write itself waits for the next turn of the loop.
    expect(batches).toEqual([]);
    vi.advanceTimersToNextTimer();
    expect(batches).toEqual([
      [
        { id: "a", count: 2, at: "2026-01-01T00:00:02.000Z" },
        { id: "b", count: 1, at: "2026-01-01T00:00:01.000Z" },
      ],
    ]);
    expect(c.size).toBe(0);
  });

  it("starts a batch early once maxPending records have counts waiting, however many reads that took, and never inside the read", () => {
    vi.useFakeTimers();
    const batches: AccessEntry[][] = [];
    const c = new AccessCoalescer((e) => void batches.push(e), { intervalMs: 60_000, maxPending: 2 });
    c.note("a", "t1");
    c.note("a", "t2");
    c.note("a", "t3");
    c.note("b", "t4");
    expect(batches).toHaveLength(0);
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([
      [
        { id: "a", count: 3, at: "t3" },
        { id: "b", count: 1, at: "t4" },
      ],
    ]);
  });

  it("writes a large batch in chunks, one per turn of the event loop", () => {
    vi.useFakeTimers();
    const batches: string[][] = [];
    const c = new AccessCoalescer((e) => void batches.push(e.map((x) => x.id)), { intervalMs: 1000, maxPending: 100, chunk: 2 });
    for (const id of ["a", "b", "c", "d", "e"]) c.note(id, "t");
    vi.advanceTimersByTime(1000);
    expect(batches).toEqual([]);
    vi.advanceTimersToNextTimer();
    expect(batches).toEqual([["a", "b"]]);
    vi.advanceTimersToNextTimer();
    expect(batches).toEqual([["a", "b"], ["c", "d"]]);
    vi.advanceTimersToNextTimer();
    expect(batches).toEqual([["a", "b"], ["c", "d"], ["e"]]);
    expect(c.size).toBe(0);
  });

  it("keeps a chunk whose write failed and sends it with the next batch", () => {
    vi.useFakeTimers();
    let fail = true;
    const batches: AccessEntry[][] = [];
    const c = new AccessCoalescer(
      (e) => {
        if (fail) throw new Error("disk full");
        batches.push(e);
      },
      { intervalMs: 1000, maxPending: 100 },
    );
    c.note("a", "t1");
    vi.advanceTimersByTime(1000);
    vi.advanceTimersToNextTimer();
    expect(c.size).toBe(1);
    c.note("a", "t2");
    fail = false;
    vi.advanceTimersByTime(1000);
    vi.advanceTimersToNextTimer();
    expect(batches).toEqual([[{ id: "a", count: 2, at: "t2" }]]);
    expect(c.size).toBe(0);
  });

  it("flush() writes the batch in progress and the waiting counts at once", () => {
    vi.useFakeTimers();
    const batches: string[][] = [];
    const c = new AccessCoalescer((e) => void batches.push(e.map((x) => x.id)), { intervalMs: 1000, maxPending: 3, chunk: 1 });
    for (const id of ["a", "b", "c"]) c.note(id, "t");
    c.note("d", "t");
    c.flush();
    expect(batches).toEqual([["a", "b", "c", "d"]]);
    vi.advanceTimersByTime(5000);
    expect(batches).toHaveLength(1);
    expect(c.size).toBe(0);
  });
});
