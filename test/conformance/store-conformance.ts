import { afterEach, describe, expect, it } from "vitest";
import { FakeEmbedder } from "../../src/embed/fake-embedder.js";
import type { MemoryRecord } from "../../src/model/record.js";
import { ANONYMOUS } from "../../src/model/subject.js";
import { LATEST_VERSION, migrate, type MigrationStore } from "../../src/store/migrations/index.js";
import type { RecordQuery, Store } from "../../src/store/store.js";
import { RecordExistsError, RevisionConflictError, TargetsGoneError, TargetsSupersededError } from "../../src/store/store-errors.js";
import { syntheticRecord } from "../helpers/synthetic-record.js";
import { ALICE, BOB, NOW, NOW_S, query } from "./conformance-fixtures.js";
import { raceCases } from "./store-races.js";

/**
 * Runs racers "at once" and reports how each ended. The default starts them
 * together and lets the store's own concurrency decide. A harness whose
 * store talks in requests (the loopback Qdrant fake) can hold requests and
 * release them so that every racer has read before any writes, the
 * interleaving each race below is about.
 */
export type Race = <T>(racers: readonly (() => Promise<T>)[]) => Promise<PromiseSettledResult<T>[]>;

/** One backing store (a data directory, a collection) under test. */
export type StoreHarness = {
  /** Vector dimension of the backing store. */
  dim: number;
  /** Opens one more store instance on the same backing store: two of them stand for two servers, or a server and an operator verb. */
  open(): Promise<Store>;
  /** The migration engine's view of an opened store. */
  migrations(store: Store): MigrationStore;
  /** Forces interleavings; absent means real concurrency (Promise.allSettled). */
  race?: Race;
  /** Closes nothing the test closed itself; drops the backing store. */
  cleanup(): Promise<void>;
};

export type StoreHarnessFactory = () => Promise<StoreHarness>;

const realRace: Race = (racers) => Promise.allSettled(racers.map((r) => r()));

/**
 * The Store port's contract, the same for every implementation: every
 * method, and every race the port promises to win between two instances on
 * one backing store.
 */
export function storeConformance(name: string, factory: StoreHarnessFactory): void {
  describe(`Store conformance: ${name}`, () => {
    let harness: StoreHarness | undefined;
    const opened: Store[] = [];

    /** Two instances on one fresh backing store, closed and dropped after the test. */
    async function two(): Promise<{ h: StoreHarness; a: Store; b: Store; race: Race; vec: (text: string) => Promise<Float32Array> }> {
      harness = await factory();
      const a = await harness.open();
      const b = await harness.open();
      opened.push(a, b);
      const embedder = new FakeEmbedder(harness.dim);
      return { h: harness, a, b, race: harness.race ?? realRace, vec: async (t) => (await embedder.embedDocuments([t]))[0]! };
    }

    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      await harness?.cleanup();
      harness = undefined;
    });

    /** A record of `owner` with a short id of its own. */
    function rec(i: number, extra: Partial<MemoryRecord> = {}): MemoryRecord {
      return syntheticRecord(i, { owner: "alice", actor: "alice", short_id: `C${String(i).padStart(9, "0")}`, ...extra });
    }

    // ---- point writes and reads ------------------------------------------------

    it("create inserts a record that either instance reads back at once, with a revision", async () => {
      const { a, b, vec } = await two();
      expect(await a.create(rec(1), await vec("record 1"))).toBe(true);
      const got = await b.getRaw(rec(1).id);
      expect(got).toMatchObject({ id: rec(1).id, content: rec(1).content, owner: "alice" });
      expect(typeof got!.revision).toBe("string");
      expect(await b.vectorOf(rec(1).id)).toHaveLength((await vec("x")).length);
    });

    it("create never overwrites: a second create at a taken id reports false and the first record stays", async () => {
      const { a, b, vec } = await two();
      await a.create(rec(2, { content: "first" }), await vec("first"));
      expect(await b.create(rec(2, { content: "second" }), await vec("second"))).toBe(false);
      expect((await a.getRaw(rec(2).id))!.content).toBe("first");
    });

    it("replace lands on the revision it read and stamps a new one", async () => {
      const { a, b, vec } = await two();
      await a.create(rec(3), await vec("r"));
      const read = (await b.getRaw(rec(3).id))!;
      await b.replace({ ...read, content: "changed" });
      const after = (await a.getRaw(rec(3).id))!;
      expect(after.content).toBe("changed");
      expect(after.revision).not.toBe(read.revision);
    });

    it("replace with a stale revision is a conflict and writes nothing", async () => {
      const { a, b, vec } = await two();
      await a.create(rec(4), await vec("r"));
      const stale = (await a.getRaw(rec(4).id))!;
      await b.replace({ ...(await b.getRaw(rec(4).id))!, tags: ["from-b"] });
      const err = await a.replace({ ...stale, content: "from a" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RevisionConflictError);
      expect((err as RevisionConflictError).gone).toBe(false);
      expect(await a.getRaw(rec(4).id)).toMatchObject({ content: rec(4).content, tags: ["from-b"] });
    });

    it("replace of a record deleted meanwhile is a gone conflict and does not resurrect it", async () => {
      const { a, b, vec } = await two();
      await a.create(rec(5), await vec("r"));
      const read = (await a.getRaw(rec(5).id))!;
      expect(await b.delete(rec(5).id)).toBe(true);
      const err = await a.replace({ ...read, content: "late" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RevisionConflictError);
      expect((err as RevisionConflictError).gone).toBe(true);
      expect(await b.getRaw(rec(5).id)).toBeUndefined();
      expect(await a.delete(rec(5).id)).toBe(false);
    });

    it("replace keeps the vector unless one is given", async () => {
      const { a, vec } = await two();
      const v1 = await vec("alpha beta");
      await a.create(rec(6), v1);
      await a.replace({ ...(await a.getRaw(rec(6).id))!, tags: ["x"] });
      expect([...(await a.vectorOf(rec(6).id))!]).toEqual([...v1]);
      const v2 = await vec("gamma delta");
      await a.replace({ ...(await a.getRaw(rec(6).id))!, content: "gamma delta" }, v2);
      expect([...(await a.vectorOf(rec(6).id))!]).toEqual([...v2]);
    });

    it("resolve takes a UUID as is, a short id in any case, and tells not found from ambiguous", async () => {
      const { a, b, vec } = await two();
      await a.create(rec(7, { short_id: "SAMESHORT1" }), await vec("r"));
      expect(await b.resolve(rec(7).id.toUpperCase())).toEqual({ kind: "id", id: rec(7).id });
      expect(await b.resolve("sameshort1")).toEqual({ kind: "id", id: rec(7).id });
      expect(await b.resolve("NOSUCHID00")).toEqual({ kind: "not_found" });
      expect(await b.countShortId("SAMESHORT1")).toBe(1);
      await a.create(rec(8, { short_id: "SAMESHORT1" }), await vec("r"));
      expect(await b.resolve("SAMESHORT1")).toEqual({ kind: "ambiguous" });
      expect(await b.countShortId("sameshort1")).toBe(2);
    });

    it("reads apply authorization: owners read their own, everyone reads shared, only owners get the write gate", async () => {
      const { a, vec } = await two();
      await a.create(rec(10), await vec("private"));
      await a.create(rec(11, { visibility: "shared" }), await vec("shared"));
      await a.create(rec(12, { owner: "", actor: "" }), await vec("anonymous"));
      expect(await a.getReadable(rec(10).id, BOB)).toBeUndefined();
      expect(await a.getReadable(rec(11).id, BOB)).toMatchObject({ id: rec(11).id });
      expect(await a.getOwned(rec(11).id, BOB)).toBeUndefined();
      expect(await a.getOwned(rec(11).id, ALICE)).toMatchObject({ id: rec(11).id });
      expect(await a.getReadable(rec(11).id, ANONYMOUS)).toBeUndefined();
      expect(await a.getOwned(rec(12).id, ANONYMOUS)).toMatchObject({ id: rec(12).id });
      expect(await a.getReadable(rec(12).id, ALICE)).toBeUndefined();
    });

    it("delete and deleteOwnedInScope remove only what they name, and only the subject's own", async () => {
      const { a, b, vec } = await two();
      await a.create(rec(20, { scope: "repo:x" }), await vec("r"));
      await a.create(rec(21, { scope: "repo:x" }), await vec("r"));
      await a.create(rec(22, { scope: "repo:x", owner: "bob", actor: "bob", visibility: "shared" }), await vec("r"));
      await a.create(rec(23, { scope: "repo:y" }), await vec("r"));
      expect(await b.deleteOwnedInScope("repo:x", ALICE)).toBe(2);
      expect(await a.count(query(ALICE, { scope: "repo:x" }))).toBe(1);
      expect(await a.getRaw(rec(23).id)).toBeDefined();
      expect(await b.delete(rec(23).id)).toBe(true);
      expect(await a.getRaw(rec(23).id)).toBeUndefined();
    });

    // ---- filtered reads -----------------------------------------------------------

    it("list, count, tagCounts and scopeCounts agree across instances, with order, offset and cursor", async () => {
      const { a, b, vec } = await two();
      for (let i = 30; i < 36; i++) await a.create(rec(i, { scope: "repo:list", tags: [`t${i % 2}`, "all"] }), await vec(`r${i}`));
      await a.create(rec(36, { scope: "repo:other" }), await vec("r36"));
      const q = query(ALICE, { scope: "repo:list" });
      expect(await b.count(q)).toBe(6);
      const desc = await b.list(q, { order: "desc", limit: 3 });
      expect(desc.total).toBe(6);
      expect(desc.records.map((r) => r.id)).toEqual([35, 34, 33].map((i) => rec(i).id));
      const asc = await b.list(q, { order: "asc", offset: 4, limit: 10 });
      expect(asc.records.map((r) => r.id)).toEqual([34, 35].map((i) => rec(i).id));
      const last = desc.records[2]!;
      const next = await b.list(q, { order: "desc", limit: 2, cursor: { c: last.created_at, seen: [last.id] } });
      expect(next.records.map((r) => r.id)).toEqual([32, 31].map((i) => rec(i).id));
      expect(await b.tagCounts(q)).toEqual(new Map([["t0", 3], ["all", 6], ["t1", 3]]));
      expect((await b.scopeCounts(ALICE)).scopes).toEqual([
        { scope: "repo:list", count: 6 },
        { scope: "repo:other", count: 1 },
      ]);
      expect((await b.scopeCounts(BOB)).scopes).toEqual([]);
    });

    it("the recall gate hides archived, superseded and out-of-window records unless a read relaxes it", async () => {
      const { a, vec } = await two();
      await a.create(rec(40, { scope: "repo:gate" }), await vec("live"));
      await a.create(rec(41, { scope: "repo:gate", archived_at: NOW.toISOString() }), await vec("archived"));
      await a.create(rec(42, { scope: "repo:gate", superseded_by: rec(40).id }), await vec("superseded"));
      await a.create(rec(43, { scope: "repo:gate", not_before: NOW_S + 3600 }), await vec("scheduled"));
      const ids = async (q: RecordQuery) => (await a.list(q, { order: "asc", limit: 10 })).records.map((r) => r.id);
      expect(await ids(query(ALICE, { scope: "repo:gate" }))).toEqual([rec(40).id]);
      expect(await ids(query(ALICE, { scope: "repo:gate", gate: { archived: true, superseded: false, scheduled: false } }))).toEqual([rec(40).id, rec(41).id]);
      expect(await ids(query(ALICE, { scope: "repo:gate", gate: null }))).toHaveLength(4);
    });

    it("search returns vector neighbours and lexical matches that pass the filter, best first", async () => {
      const { a, b, vec } = await two();
      await a.create(rec(50, { scope: "repo:s", content: "the flux capacitor needs plutonium" }), await vec("far away words"));
      for (let i = 51; i < 60; i++) await a.create(rec(i, { scope: "repo:s", content: `ordinary note ${i}` }), await vec(`ordinary note ${i}`));
      await a.create(rec(60, { scope: "repo:s", content: "ordinary note hidden", archived_at: NOW.toISOString() }), await vec("ordinary note 55"));
      const hits = await b.search(query(ALICE, { scope: "repo:s" }), await vec("ordinary note 55"), "plutonium", 5);
      const ids = hits.map((h) => h.record.id);
      expect(ids[0]).toBe(rec(55).id);
      expect(ids).toContain(rec(50).id);
      expect(ids).not.toContain(rec(60).id);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    });

    it("search handed a vector still being embedded answers as the store is once the vector comes", async () => {
      const { a, b, vec } = await two();
      for (let i = 61; i < 66; i++) await a.create(rec(i, { scope: "repo:w", content: `plutonium note ${i}` }), await vec(`unrelated ${i}`));
      let give: (v: Float32Array) => void = () => {};
      const coming = new Promise<Float32Array>((resolve) => (give = resolve));
      const asked = b.search(query(ALICE, { scope: "repo:w" }), coming, "plutonium", 10);
      // Written while the query embeds, from both instances.
      expect(await a.delete(rec(61).id)).toBe(true);
      await a.replace({ ...(await a.getRaw(rec(62).id))!, archived_at: NOW.toISOString() });
      await b.create(rec(66, { scope: "repo:w", content: "plutonium note 66" }), await vec("unrelated 66"));
      give(await vec("unrelated 63"));
      const ids = (await asked).map((h) => h.record.id);
      expect(ids).not.toContain(rec(61).id);
      expect(ids).not.toContain(rec(62).id);
      expect(ids).toContain(rec(66).id);
      expect(ids[0]).toBe(rec(63).id);
      const now = await b.search(query(ALICE, { scope: "repo:w" }), await vec("unrelated 63"), "plutonium", 10);
      expect(ids).toEqual(now.map((h) => h.record.id));
    });

    // ---- supersede, import, counters, meta ---------------------------------------------

    it("supersede writes the new record and back-stamps every target in one step", async () => {
      const { a, b, vec } = await two();
      await a.create(rec(70), await vec("old"));
      await a.create(rec(71), await vec("old"));
      const next = rec(72, { supersedes: [rec(70).id, rec(71).id] });
      await b.supersede(next, await vec("new"), [rec(70).id, rec(71).id], ALICE);
      expect((await a.getRaw(rec(70).id))!.superseded_by).toBe(rec(72).id);
      expect((await a.getRaw(rec(71).id))!.superseded_by).toBe(rec(72).id);
      expect(await a.getRaw(rec(72).id)).toMatchObject({ supersedes: [rec(70).id, rec(71).id] });
    });

    it("supersede refuses, writing nothing, when a target is gone, someone else's, already superseded, or the new id is taken", async () => {
      const { a, vec } = await two();
      const v = await vec("x");
      await a.create(rec(80), v);
      await a.create(rec(81, { owner: "bob", actor: "bob" }), v);
      await a.create(rec(82, { superseded_by: rec(80).id }), v);
      await a.create(rec(83), v);
      const attempt = (targets: string[], id = 89) => a.supersede(rec(id), v, targets, ALICE).catch((e: unknown) => e);
      expect(await attempt([rec(80).id, rec(99).id])).toBeInstanceOf(TargetsGoneError);
      expect(await attempt([rec(81).id])).toBeInstanceOf(TargetsGoneError);
      const taken = await attempt([rec(80).id, rec(82).id]);
      expect(taken).toBeInstanceOf(TargetsSupersededError);
      expect((taken as TargetsSupersededError).ids).toEqual([rec(82).id]);
      expect(await attempt([rec(80).id], 83)).toBeInstanceOf(RecordExistsError);
      expect(await a.getRaw(rec(89).id)).toBeUndefined();
      expect((await a.getRaw(rec(80).id))!.superseded_by).toBeUndefined();
      expect((await a.getRaw(rec(83).id))!.content).toBe(rec(83).content);
    });

    it("importBatch writes whole records at the version and revision they carry, overwriting the same id", async () => {
      const { a, b, vec } = await two();
      const v = await vec("x");
      await a.create(rec(90, { content: "before import" }), v);
      await b.importBatch([
        { record: rec(90, { content: "imported", revision: "rev-90" }), vector: v, version: 1 },
        { record: rec(91, { revision: "rev-91" }), vector: v, version: null },
      ]);
      expect(await a.getRaw(rec(90).id)).toMatchObject({ content: "imported", revision: "rev-90", schema_version: 1 });
      const legacy = (await a.getRaw(rec(91).id))!;
      expect(legacy.revision).toBe("rev-91");
      expect(legacy.schema_version).toBeUndefined();
      const hist = await a.schemaHistogram();
      expect(hist).toEqual({ versions: new Map([[1, 1]]), absent: 1, total: 2 });
    });

    it("counted reads are written by flushAccess and by close, never undoing a write made meanwhile", async () => {
      const { h, a, b, vec } = await two();
      await a.create(rec(100), await vec("x"));
      a.noteAccess(rec(100).id, "2026-06-01T12:00:01.000Z");
      a.noteAccess(rec(100).id, "2026-06-01T12:00:02.000Z");
      await b.replace({ ...(await b.getRaw(rec(100).id))!, content: "written meanwhile" });
      await a.flushAccess();
      expect(await b.getRaw(rec(100).id)).toMatchObject({ access_count: 2, last_accessed_at: "2026-06-01T12:00:02.000Z", content: "written meanwhile" });
      const c = await h.open();
      c.noteAccess(rec(100).id, "2026-06-01T12:00:03.000Z");
      await c.close();
      expect((await a.getRaw(rec(100).id))!.access_count).toBe(3);
    });

    it("meta values are shared by every instance", async () => {
      const { a, b } = await two();
      expect(await a.getMeta("conformance_key")).toBeUndefined();
      await a.setMeta("conformance_key", "one");
      await b.setMeta("conformance_key", "two");
      expect(await a.getMeta("conformance_key")).toBe("two");
    });

    // ---- the migration store --------------------------------------------------------------

    it("the migration store pins, counts, scans and rewrites in passes bounded by the byte budget", async () => {
      const { h, a, vec } = await two();
      const v = await vec("x");
      const big = "x".repeat(4096);
      await a.importBatch(Array.from({ length: 5 }, (_, i) => ({ record: rec(110 + i, { content: big }), vector: v, version: 1 })));
      await a.importBatch([{ record: rec(120), vector: v, version: LATEST_VERSION + 1 }]);
      const m = h.migrations(a);
      expect(await m.pinBelow(LATEST_VERSION)).toBe(5);
      expect(await m.pendingCount()).toBe(5);
      expect(await m.countBelow(LATEST_VERSION, true)).toBe(5);
      expect(await m.countAbove(LATEST_VERSION)).toBe(1);
      expect(await m.versionHistogramAbove(LATEST_VERSION)).toEqual(new Map([[LATEST_VERSION + 1, 1]]));
      const seen: string[] = [];
      await m.scanPinned(LATEST_VERSION, { rows: 2, bytes: 1 }, (row) => void seen.push(row.id), false);
      expect(seen.sort()).toEqual([110, 111, 112, 113, 114].map((i) => rec(i).id));
      // A budget smaller than one record still moves one record per pass.
      const first = await m.rewritePass({ pinnedBelow: LATEST_VERSION }, { rows: 100, bytes: 1 }, LATEST_VERSION, (row) => row.payload);
      expect(first).toEqual(["ok"]);
      expect(await m.pendingCount()).toBe(4);
      const rest = await m.rewritePass({ pinnedBelow: LATEST_VERSION }, { rows: 100, bytes: 1 << 20 }, LATEST_VERSION, (row) => row.payload);
      expect(rest).toEqual(["ok", "ok", "ok", "ok"]);
      expect(await m.pendingCount()).toBe(0);
      expect(await m.countBelow(LATEST_VERSION, false)).toBe(0);
    });

    it("a replace from a read taken before a sweep rewrote the record is a conflict: a sweep write is a write", async () => {
      const { h, a, b, vec } = await two();
      await a.importBatch([{ record: rec(130), vector: await vec("x"), version: 1 }]);
      const before = (await b.getRaw(rec(130).id))!;
      expect(await migrate(h.migrations(a), { target: LATEST_VERSION, apply: true })).toMatchObject({ migrated: 1, backlog: 0 });
      const err = await b.replace({ ...before, content: "stale" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RevisionConflictError);
      expect(await a.getRaw(rec(130).id)).toMatchObject({ content: rec(130).content, schema_version: LATEST_VERSION });
    });

    it("warm resolves with every part ready, and close can be called twice", async () => {
      const { h, a, vec } = await two();
      for (let i = 140; i < 150; i++) await a.create(rec(i), await vec(`r${i}`));
      const c = await h.open();
      await c.warm();
      expect(c.readiness?.() ?? []).toEqual([]);
      expect(await c.count(query(ALICE))).toBe(10);
      await c.close();
      await c.close();
    });

    // ---- races between two instances ---------------------------------------------------------

    raceCases({ two, rec });
  });
}
