import { expect, it } from "vitest";
import { SentinelError } from "../../src/argerror/index.js";
import { createCore, DEFAULT_LIMITS, silentLogger, type Core } from "../../src/core/index.js";
import { FakeEmbedder } from "../../src/embed/fake-embedder.js";
import type { MemoryRecord } from "../../src/model/record.js";
import { LATEST_VERSION, migrate } from "../../src/store/migrations/index.js";
import type { Store } from "../../src/store/store.js";
import { RevisionConflictError } from "../../src/store/store-errors.js";
import { ALICE, NOW, query } from "./conformance-fixtures.js";
import type { Race, StoreHarness } from "./store-conformance.js";

/** What a case gets from the suite: two instances on one fresh backing store, and a record maker. */
export type Cases = {
  two(): Promise<{ h: StoreHarness; a: Store; b: Store; race: Race; vec: (text: string) => Promise<Float32Array> }>;
  rec(i: number, extra?: Partial<MemoryRecord>): MemoryRecord;
};

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

/** Every race the port promises to win between two instances on one backing store. */
export function raceCases({ two, rec }: Cases): void {
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
}
