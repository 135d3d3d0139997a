import { afterEach, describe, expect, it } from "vitest";
import { SentinelError } from "../../src/argerror/index.js";
import { createCore, DEFAULT_LIMITS, silentLogger, type Core } from "../../src/core/index.js";
import { FakeEmbedder } from "../../src/embed/fake-embedder.js";
import type { MemoryRecord } from "../../src/model/record.js";
import { ANONYMOUS, ownerSubject, type Subject } from "../../src/model/subject.js";
import { LATEST_VERSION, migrate, type MigrationStore } from "../../src/store/migrations/index.js";
import { GATE_ON, type RecordQuery, type Store } from "../../src/store/store.js";
import { RecordExistsError, RevisionConflictError, TargetsGoneError, TargetsSupersededError } from "../../src/store/store-errors.js";
import { syntheticRecord } from "../helpers/synthetic-record.js";

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

const NOW = new Date("2026-06-01T12:00:00.000Z");
const NOW_S = Math.floor(NOW.getTime() / 1000);
const ALICE = ownerSubject("alice");
const BOB = ownerSubject("bob");

const realRace: Race = (racers) => Promise.allSettled(racers.map((r) => r()));

function query(subject: Subject, extra: Partial<RecordQuery> = {}): RecordQuery {
  return { subject, gate: GATE_ON, now: NOW_S, ...extra };
}

function coreOver(store: Store, dim: number): Core {
  return createCore({ store, embedder: new FakeEmbedder(dim), limits: DEFAULT_LIMITS, now: () => NOW, log: silentLogger });
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const WRITES = new Set<PropertyKey>(["create", "replace", "supersede", "importBatch", "delete", "deleteOwnedInScope"]);

/**
 * Stores for racers that have all read before any of them writes: racer
 * i's first write through its store waits until every racer has reached its
 * first write (or finished without one), then the first writes go through
 * one at a time in `order`, each after the one before it has settled. Later
 * writes (a retry after a lost race) pass freely. The ordering is forced at
 * the port, so it holds for any store; without it, which racer reads first
 * depends on how many awaits each code path happens to take.
 */
function readsBeforeWrites(
  race: Race,
  stores: readonly Store[],
  order: readonly number[],
): { run: <T>(racers: readonly ((s: Store) => Promise<T>)[]) => Promise<PromiseSettledResult<T>[]> } {
  const n = stores.length;
  const arrived = new Set<number>();
  const turn = Array.from({ length: n }, () => deferred());
  const settled = Array.from({ length: n }, () => deferred());
  const allArrived = deferred();
  const arrive = (i: number) => {
    arrived.add(i);
    if (arrived.size === n) allArrived.resolve();
  };
  void allArrived.promise.then(async () => {
    for (const i of order) {
      turn[i]!.resolve();
      await settled[i]!.promise;
    }
  });
  const proxied = stores.map(
    (store, i) =>
      new Proxy(store, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== "function") return value;
          if (!WRITES.has(prop)) return (value as (...a: unknown[]) => unknown).bind(target);
          return async (...args: unknown[]) => {
            if (arrived.has(i)) return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            arrive(i);
            await turn[i]!.promise;
            try {
              return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            } finally {
              settled[i]!.resolve();
            }
          };
        },
      }),
  );
  return {
    run: (racers) =>
      race(
        racers.map((r, i) => async () => {
          try {
            return await r(proxied[i]!);
          } finally {
            // A racer that ends without writing must not hold the others back.
            arrive(i);
            settled[i]!.resolve();
          }
        }),
      ),
  };
}

function messages(results: readonly PromiseSettledResult<unknown>[]): string[] {
  return results.map((r) => (r.status === "fulfilled" ? "ok" : r.reason instanceof Error ? r.reason.message : String(r.reason)));
}

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

    it("list, count, tagCounts and listScopes agree across instances, with order, offset and cursor", async () => {
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
      expect((await b.listScopes(ALICE)).scopes).toEqual([
        { scope: "repo:list", count: 6 },
        { scope: "repo:other", count: 1 },
      ]);
      expect((await b.listScopes(BOB)).scopes).toEqual([]);
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

    it("race: two replaces from the same read, exactly one lands and the other is a conflict", async () => {
      const { a, b, race, vec } = await two();
      await a.create(rec(200), await vec("x"));
      const ra = (await a.getRaw(rec(200).id))!;
      const rb = (await b.getRaw(rec(200).id))!;
      const results = await race([() => a.replace({ ...ra, content: "from a" }), () => b.replace({ ...rb, tags: ["from-b"] })]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(RevisionConflictError);
      const after = (await a.getRaw(rec(200).id))!;
      expect(after.content === "from a" ? after.tags : after.content).toEqual(after.content === "from a" ? rec(200).tags : rec(200).content);
    });

    it("race: two creates at one id, exactly one inserts", async () => {
      const { a, b, race, vec } = await two();
      const v = await vec("x");
      const results = await race([() => a.create(rec(201, { content: "a" }), v), () => b.create(rec(201, { content: "b" }), v)]);
      expect(results.map((r) => (r.status === "fulfilled" ? r.value : r.reason)).sort()).toEqual([false, true]);
      const winner = results.findIndex((r) => r.status === "fulfilled" && r.value);
      expect((await a.getRaw(rec(201).id))!.content).toBe(winner === 0 ? "a" : "b");
    });

    it("race: a keyed StoreMemory from both instances with the same content, both read before either writes, returns one id to both", async () => {
      const { h, a, b, race } = await two();
      const args = { content: "keyed once", scope: "repo:keyed", source: "user-said", category: "decision", idempotency_key: "k-same" };
      const results = await readsBeforeWrites(race, [a, b], [0, 1]).run([(s) => coreOver(s, h.dim).storeMemory(ALICE, args), (s) => coreOver(s, h.dim).storeMemory(ALICE, args)]);
      expect(messages(results)).toEqual(["ok", "ok"]);
      const [ra, rb] = results.map((r) => (r as PromiseFulfilledResult<{ id: string; short_id: string }>).value);
      expect(rb).toEqual(ra);
      expect(await a.count(query(ALICE, { scope: "repo:keyed" }))).toBe(1);
    });

    it("race: a keyed StoreMemory from both instances with different content, one succeeds and the other gets already_exists", async () => {
      const { h, a, b, race } = await two();
      const base = { scope: "repo:keyed", source: "user-said", category: "decision", idempotency_key: "k-diff" };
      const results = await readsBeforeWrites(race, [a, b], [1, 0]).run([
        (s) => coreOver(s, h.dim).storeMemory(ALICE, { ...base, content: "content from a" }),
        (s) => coreOver(s, h.dim).storeMemory(ALICE, { ...base, content: "content from b" }),
      ]);
      // b wrote first, so a's create finds the key taken with other content.
      expect(messages(results)).toEqual(["idempotency_key was already used with different content", "ok"]);
      expect(((results[0] as PromiseRejectedResult).reason as SentinelError).kind).toBe("idempotency_conflict");
      const { id } = (results[1] as PromiseFulfilledResult<{ id: string }>).value;
      expect((await a.getRaw(id))!.content).toBe("content from b");
      expect(await a.count(query(ALICE, { scope: "repo:keyed" }))).toBe(1);
    });

    it("race: a keyed SupersedeMemory retried from the other instance with other content gets already_exists and supersedes nothing more", async () => {
      const { h, a, b, race, vec } = await two();
      await a.create(rec(240, { short_id: "KEYSUP0240" }), await vec("t"));
      await a.create(rec(241, { short_id: "KEYSUP0241" }), await vec("t"));
      const base = { scope: rec(240).scope, source: "user-said", category: "decision", idempotency_key: "k-sup" };
      const results = await readsBeforeWrites(race, [a, b], [0, 1]).run<unknown>([
        (s) => coreOver(s, h.dim).supersedeMemory(ALICE, { ...base, content: "one", supersedes: ["KEYSUP0240"] }),
        (s) => coreOver(s, h.dim).supersedeMemory(ALICE, { ...base, content: "two", supersedes: ["KEYSUP0241"] }),
      ]);
      expect(messages(results)).toEqual(["ok", "idempotency_key was already used with different content"]);
      expect((await b.getRaw(rec(241).id))!.superseded_by).toBeUndefined();
    });

    it("race: overlapping supersedes of one target from both instances, all validated before any writes, exactly one wins", async () => {
      const { h, a, b, race, vec } = await two();
      await a.create(rec(210, { short_id: "TARGET0210" }), await vec("target"));
      const n = 10;
      const racers = Array.from({ length: n }, (_, i) => (s: Store) =>
        coreOver(s, h.dim).supersedeMemory(ALICE, { content: `replacement ${i}`, scope: rec(210).scope, source: "user-said", category: "decision", supersedes: ["TARGET0210"] }),
      );
      const stores = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? a : b));
      const results = await readsBeforeWrites(race, stores, [...Array(n).keys()]).run(racers);
      const out = messages(results);
      expect(out.filter((m) => m === "ok")).toHaveLength(1);
      expect(out.filter((m) => m === "target is already superseded: TARGET0210")).toHaveLength(n - 1);
      const winner = (results.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ id: string }>).value;
      expect((await b.getRaw(rec(210).id))!.superseded_by).toBe(winner.id);
      expect(await a.count(query(ALICE, { scope: rec(210).scope, gate: null }))).toBe(2);
    });

    it("race: overlapping supersedes of one target at real concurrency, exactly one wins", async () => {
      const { h, a, b, race, vec } = await two();
      await a.create(rec(211, { short_id: "TARGET0211" }), await vec("target"));
      const [ca, cb] = [coreOver(a, h.dim), coreOver(b, h.dim)];
      const results = await race(
        Array.from({ length: 10 }, (_, i) => () =>
          (i % 2 === 0 ? ca : cb).supersedeMemory(ALICE, { content: `replacement ${i}`, scope: rec(211).scope, source: "user-said", category: "decision", supersedes: ["TARGET0211"] }),
        ),
      );
      const out = messages(results);
      expect(out.filter((m) => m === "ok")).toHaveLength(1);
      expect(out.filter((m) => m === "target is already superseded: TARGET0211")).toHaveLength(9);
    });

    for (const order of [[0, 1], [1, 0]] as const) {
      it(`race: an archive and an update of one record from both instances, both read first, ${order[0] === 0 ? "archive" : "update"} writes first: neither is lost`, async () => {
        const { h, a, b, race, vec } = await two();
        await a.create(rec(220, { short_id: "ARCHUPD220" }), await vec("x"));
        const results = await readsBeforeWrites(race, [a, b], order).run<unknown>([
          (s) => coreOver(s, h.dim).archiveMemory(ALICE, { ids: ["ARCHUPD220"] }),
          (s) => coreOver(s, h.dim).updateMemory(ALICE, { id: "ARCHUPD220", content: "updated while archiving", update_mask: ["content"] }, "connect"),
        ]);
        expect(messages(results)).toEqual(["ok", "ok"]);
        expect((results[0] as PromiseFulfilledResult<unknown>).value).toEqual([{ requested: "ARCHUPD220", id: rec(220).id, outcome: "archived" }]);
        const after = (await a.getRaw(rec(220).id))!;
        expect(after.content).toBe("updated while archiving");
        expect(after.archived_at).toBe(NOW.toISOString());
      });

      it(`race: an update and a supersede of one record from both instances, both read first, ${order[0] === 0 ? "update" : "supersede"} writes first: superseded_by is never wiped`, async () => {
        const { h, a, b, race, vec } = await two();
        await a.create(rec(230, { short_id: "UPDSUP0230" }), await vec("x"));
        const results = await readsBeforeWrites(race, [a, b], order).run<unknown>([
          (s) => coreOver(s, h.dim).updateMemory(ALICE, { id: "UPDSUP0230", tags: ["updated"], update_mask: ["tags"] }, "connect"),
          (s) =>
            coreOver(s, h.dim).supersedeMemory(ALICE, { content: "the replacement", scope: rec(230).scope, source: "user-said", category: "decision", supersedes: ["UPDSUP0230"] }),
        ]);
        expect(messages(results)).toEqual(["ok", "ok"]);
        const winner = (results[1] as PromiseFulfilledResult<{ id: string }>).value;
        const after = (await b.getRaw(rec(230).id))!;
        expect(after.superseded_by).toBe(winner.id);
        expect(after.tags).toEqual(["updated"]);
      });

      it(`race: set-visibility and restore of one record from both instances, both read first, ${order[0] === 0 ? "visibility" : "restore"} writes first: neither is lost`, async () => {
        const { h, a, b, race, vec } = await two();
        await a.create(rec(250, { short_id: "VISRES0250", archived_at: NOW.toISOString() }), await vec("x"));
        const results = await readsBeforeWrites(race, [a, b], order).run<unknown>([
          (s) => coreOver(s, h.dim).setVisibility(ALICE, { id: "VISRES0250", shared: true }, "mcp"),
          (s) => coreOver(s, h.dim).restoreMemory(ALICE, { ids: ["VISRES0250"] }),
        ]);
        expect(messages(results)).toEqual(["ok", "ok"]);
        const after = (await a.getRaw(rec(250).id))!;
        expect(after.visibility).toBe("shared");
        expect(after.archived_at).toBeUndefined();
      });
    }

    it("race: a keyed create whose id is taken and freed again before it looks creates its record after all", async () => {
      const { h, a, b, vec } = await two();
      const args = { content: "mine", scope: "repo:keyed", source: "user-said", category: "decision", idempotency_key: "k-freed" };
      let taken: string | undefined;
      const meddling = new Proxy(a, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== "function") return value;
          if (prop === "create")
            return async (record: MemoryRecord, vector: Float32Array) => {
              if (taken === undefined) {
                taken = record.id;
                await b.create({ ...record, content: "someone else's, soon deleted", idempotency_fingerprint: "other" }, await vec("x"));
              }
              return target.create(record, vector);
            };
          if (prop === "getRaw")
            return async (id: string) => {
              if (id === taken) await b.delete(id);
              return target.getRaw(id);
            };
          return (value as (...x: unknown[]) => unknown).bind(target);
        },
      });
      const out = await coreOver(meddling, h.dim).storeMemory(ALICE, args);
      expect(out.id).toBe(taken);
      expect((await b.getRaw(out.id))!.content).toBe("mine");
    });

    it("race: a record that changes on every attempt ends in write_contended, with nothing written by the loser", async () => {
      const { h, a, b, vec } = await two();
      await a.create(rec(260, { short_id: "CONTEND260" }), await vec("x"));
      // Every read through this store is followed, before its write, by a write from the other instance.
      const meddling = new Proxy(a, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== "function") return value;
          if (prop !== "replace") return (value as (...x: unknown[]) => unknown).bind(target);
          return async (record: MemoryRecord, vector?: Float32Array) => {
            const now = (await b.getRaw(record.id))!;
            await b.replace({ ...now, access_count: now.access_count + 1 });
            return target.replace(record, vector);
          };
        },
      });
      const err = await coreOver(meddling, h.dim).archiveMemory(ALICE, { ids: ["CONTEND260"] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SentinelError);
      expect((err as SentinelError).message).toBe("record kept changing under concurrent writes, nothing was written: CONTEND260");
      expect((await b.getRaw(rec(260).id))!.archived_at).toBeUndefined();
    });

    it("race: a migration on one instance while the other writes converges with nothing lost", async () => {
      const { h, a, b, race, vec } = await two();
      const v = await vec("x");
      const n = 300;
      await a.importBatch(Array.from({ length: n }, (_, i) => ({ record: rec(1000 + i, { scope: "repo:mig" }), vector: v, version: 1 })));
      const cb = coreOver(b, h.dim);
      const updated = Array.from({ length: 40 }, (_, i) => 1000 + i * 7);
      const results = await race<unknown>([
        () => migrate(h.migrations(a), { target: LATEST_VERSION, apply: true, batch: 25 }),
        async () => {
          for (const i of updated) {
            await cb.updateMemory(ALICE, { id: rec(i).id, content: `updated during the sweep ${i}`, update_mask: ["content"] }, "connect");
            await cb.archiveMemory(ALICE, { ids: [rec(i + 1).id] });
          }
        },
      ]);
      expect(messages(results)).toEqual(["ok", "ok"]);
      const m = h.migrations(a);
      expect(await m.countBelow(LATEST_VERSION, false)).toBe(0);
      const all = (await a.list(query(ALICE, { scope: "repo:mig", gate: null }), { order: "asc", limit: 10_000 })).records;
      expect(all).toHaveLength(n);
      for (const r of all) {
        expect(r.schema_version, r.id).toBe(LATEST_VERSION);
        expect(r.content_bytes, r.id).toBe(Buffer.byteLength(r.content, "utf8"));
      }
      const byId = new Map(all.map((r) => [r.id, r]));
      for (const i of updated) {
        expect(byId.get(rec(i).id)!.content).toBe(`updated during the sweep ${i}`);
        expect(byId.get(rec(i + 1).id)!.archived_at).toBe(NOW.toISOString());
      }
    });
  });
}
