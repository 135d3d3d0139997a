import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SentinelError } from "../src/argerror/index.js";
import { ResponseTooLargeError } from "../src/argerror/index.js";
import { createCore, DEFAULT_LIMITS, silentLogger } from "../src/core/index.js";
import { FakeEmbedder } from "../src/embed/fake-embedder.js";
import { ownerSubject } from "../src/model/subject.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { QdrantStore, physicalCollectionName, DEFAULT_QDRANT_COLLECTION } from "../src/store/qdrant/index.js";
import { QdrantUnavailableError, STORE_DEADLINE_TEXT } from "../src/store/qdrant/qdrant-fault.js";
import { landedIn, trailOver } from "../src/store/qdrant/revision-trail.js";
import { GATE_ON, type RecordQuery, type Store } from "../src/store/store.js";
import { RecordExistsError, RevisionConflictError, TargetsSupersededError } from "../src/store/store-errors.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

const DIM = 32;
const NOW = new Date("2026-06-01T12:00:00.000Z");
const ALICE = ownerSubject("alice");
const embedder = new FakeEmbedder(DIM);
const vec = (text: string) => embedder.embedQuery(text);
const rec = (i: number, extra = {}) => syntheticRecord(i, { owner: "alice", ...extra });
const q = (extra: Partial<RecordQuery> = {}): RecordQuery => ({ subject: ALICE, gate: GATE_ON, now: Math.floor(NOW.getTime() / 1000), ...extra });

let fakes: QdrantFake[] = [];
let stores: Store[] = [];
let dirs: string[] = [];

async function fake(version = "1.17.1"): Promise<QdrantFake> {
  const f = await startQdrantFake({ version, warn: () => {} });
  fakes.push(f);
  return f;
}

async function open(f: QdrantFake, extra: Partial<Parameters<typeof QdrantStore.open>[0]> = {}): Promise<QdrantStore> {
  const s = await QdrantStore.open({ url: f.url, dim: DIM, ...extra });
  stores.push(s);
  return s;
}

afterEach(async () => {
  for (const s of stores) await s.close();
  for (const f of fakes) {
    // Every request the store sent had the shape Qdrant's published schema accepts.
    expect(f.schemaViolations).toEqual([]);
    await f.close();
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  fakes = [];
  stores = [];
  dirs = [];
});

describe("the Qdrant store at start", () => {
  it("refuses a server below 1.17, saying that insert_only would be silently ignored", async () => {
    const f = await fake("1.16.3");
    const err = await QdrantStore.open({ url: f.url, dim: DIM }).catch((e: unknown) => e);
    expect((err as Error).name).toBe("QdrantSetupError");
    expect((err as Error).message).toBe(
      "Qdrant 1.16.3 is too old: engram needs 1.17.0 or newer, because older servers silently ignore update_mode insert_only and a racing create would overwrite a record instead of being refused",
    );
    expect(f.state.collections.size).toBe(0);
  });

  it("makes one collection behind the alias, with dense cosine and sparse idf vectors, every payload index, strict mode and metadata", async () => {
    const f = await fake("1.19.0");
    await open(f);
    const name = physicalCollectionName(DEFAULT_QDRANT_COLLECTION);
    expect(f.state.aliases.get(DEFAULT_QDRANT_COLLECTION)).toBe(name);
    const c = f.state.collections.get(name)!;
    expect(c.dense.get("dense")).toEqual({ size: DIM, distance: "Cosine" });
    expect(c.sparse.get("lexical")).toEqual({ modifier: "idf" });
    expect(c.indexes.get("owner")).toEqual({ type: "keyword", params: { type: "keyword", is_tenant: true } });
    expect(c.indexes.get("created_at")?.type).toBe("datetime");
    for (const k of ["scope", "visibility", "category", "tags", "short_id", "superseded_by", "archived_at", "revision"]) expect(c.indexes.get(k)?.type).toBe("keyword");
    for (const k of ["not_before", "not_after", "schema_version"]) expect(c.indexes.get(k)?.type).toBe("integer");
    expect(c.strictMode).toMatchObject({ enabled: true, unindexed_filtering_retrieve: false });
    expect(c.metadata).toMatchObject({ engram_dim: DIM });
  });

  it("two servers starting at once on a fresh deployment both come up on one collection, through a transient 500 after the create", async () => {
    const f = await fake();
    const h = f.faults.inject({ match: { operation: "get_collection" }, fault: { kind: "status", status: 500 }, times: 2 });
    const [a, b] = await Promise.all([open(f), open(f)]);
    expect(h.hits).toBe(2);
    expect(f.state.collections.size).toBe(1);
    expect(f.requests.some((r) => r.operation === "create_collection" && r.status === 409)).toBe(true);
    await a.create(rec(1), await vec("hello"));
    expect((await b.getRaw(rec(1).id))?.content).toBe(rec(1).content);
  });

  it("refuses a collection made for another dimension before serving", async () => {
    const f = await fake();
    await open(f);
    const err = await QdrantStore.open({ url: f.url, dim: DIM * 2 }).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      `the Qdrant collection holds ${DIM}-dimensional vectors but the embedder makes ${DIM * 2}: run engram reindex, or point ENGRAM_QDRANT_COLLECTION elsewhere`,
    );
  });

  it("keeps meta keys in the collection metadata, where a second server reads them", async () => {
    const f = await fake();
    const a = await open(f);
    const b = await open(f);
    expect(await b.getMeta("embedder_identity")).toBeUndefined();
    await a.setMeta("embedder_identity", "local/fake/32");
    expect(await b.getMeta("embedder_identity")).toBe("local/fake/32");
  });
});

describe("conditional writes on the Qdrant store", () => {
  it("create is insert-only: a second create of the id is refused and the first record stays", async () => {
    const f = await fake();
    const [a, b] = [await open(f), await open(f)];
    expect(await a.create(rec(2, { content: "first" }), await vec("first"))).toBe(true);
    expect(await b.create(rec(2, { content: "second" }), await vec("second"))).toBe(false);
    expect((await a.getRaw(rec(2).id))!.content).toBe("first");
  });

  it("optional gate keys are absent from the stored payload, never empty strings", async () => {
    const f = await fake();
    const a = await open(f);
    await a.create(rec(3, { superseded_by: "", archived_at: "" } as never), await vec("x"));
    const point = [...f.state.collections.values()][0]!.points.values().next().value!;
    expect("superseded_by" in point.payload).toBe(false);
    expect("archived_at" in point.payload).toBe(false);
    expect(await a.count(q({ scope: rec(3).scope }))).toBe(1);
  });

  it("replace lands only on the revision it read; a stale one or a deleted record is a conflict and writes nothing", async () => {
    const f = await fake();
    const [a, b] = [await open(f), await open(f)];
    await a.create(rec(4), await vec("x"));
    const readA = (await a.getRaw(rec(4).id))!;
    const readB = (await b.getRaw(rec(4).id))!;
    await b.replace({ ...readB, content: "from b" });
    const stale = await a.replace({ ...readA, content: "from a" }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(RevisionConflictError);
    expect((stale as RevisionConflictError).gone).toBe(false);
    expect((await a.getRaw(rec(4).id))!.content).toBe("from b");
    await b.delete(rec(4).id);
    const gone = await a.replace({ ...readB, content: "again" }).catch((e: unknown) => e);
    expect((gone as RevisionConflictError).gone).toBe(true);
    expect(await a.getRaw(rec(4).id)).toBeUndefined();
  });

  it("of 100 simultaneous supersedes of one target from two stores, exactly one wins and the rest are told it is superseded", async () => {
    const f = await fake();
    const [a, b] = [await open(f), await open(f)];
    await a.create(rec(5), await vec("target"));
    const v = await vec("next");
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).supersede(rec(1000 + i, { scope: rec(5).scope, supersedes: [rec(5).id] }), v, [rec(5).id], ALICE)),
    );
    const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [1000 + i] : []));
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(TargetsSupersededError);
    expect((await b.getRaw(rec(5).id))!.superseded_by).toBe(rec(won[0]!).id);
    // Losers wrote nothing: the only new record is the winner's, and no claim is left on the target.
    expect(await a.count(q({ scope: rec(5).scope, gate: null }))).toBe(2);
    const target = [...[...f.state.collections.values()][0]!.points.values()].find((p) => p.id === rec(5).id)!;
    expect(Object.keys(target.payload).filter((k) => k.startsWith("claim_"))).toEqual([]);
  });

  it("a supersede whose new id is taken releases its claims and leaves the target a live head", async () => {
    const f = await fake();
    const a = await open(f);
    await a.create(rec(6), await vec("t"));
    await a.create(rec(7), await vec("taken"));
    const err = await a.supersede(rec(7), await vec("n"), [rec(6).id], ALICE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordExistsError);
    const target = (await a.getRaw(rec(6).id))!;
    expect(target.superseded_by).toBeUndefined();
    // The released target takes an ordinary update at once.
    await a.replace({ ...target, content: "edited" });
  });

  it("a crashed supersede's claim expires: another server supersedes the target after the lease", async () => {
    const f = await fake();
    const a = await open(f, { claimLeaseMs: 50 });
    await a.create(rec(8), await vec("t"));
    // The claim lands, then the process "dies" before its answer arrives.
    const hold = f.holds.hold({ operation: "set_payload" }, { phase: "before-response" });
    void a.supersede(rec(9), await vec("n"), [rec(8).id], ALICE).catch(() => undefined);
    await hold.reached;
    const b = await open(f, { claimLeaseMs: 50 });
    await b.supersede(rec(10), await vec("n2"), [rec(8).id], ALICE);
    expect((await b.getRaw(rec(8).id))!.superseded_by).toBe(rec(10).id);
    hold.release();
  });

  it("a keyed StoreMemory raced from two servers: other content gets already_exists, the same content the same id", async () => {
    const f = await fake();
    const [a, b] = [await open(f), await open(f)];
    const core = (s: Store) => createCore({ store: s, embedder, limits: DEFAULT_LIMITS, now: () => NOW, log: silentLogger });
    const base = { scope: "repo:keyed", source: "user-said", category: "decision" };
    const diff = await Promise.allSettled([
      core(a).storeMemory(ALICE, { ...base, content: "content from a", idempotency_key: "k-diff" }),
      core(b).storeMemory(ALICE, { ...base, content: "content from b", idempotency_key: "k-diff" }),
    ]);
    expect(diff.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = diff.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect((lost.reason as SentinelError).kind).toBe("idempotency_conflict");
    const same = await Promise.all([
      core(a).storeMemory(ALICE, { ...base, content: "same", idempotency_key: "k-same" }),
      core(b).storeMemory(ALICE, { ...base, content: "same", idempotency_key: "k-same" }),
    ]);
    expect(same[1]).toEqual(same[0]);
    expect(await a.count(q({ scope: "repo:keyed" }))).toBe(2);
  });
});

describe("read-backs on the Qdrant store when another write lands on top first", () => {
  // Each test parks one store's landed write before its answer, lets another store build on it, then lets the answer go.
  const landedThenBuiltOn = async (f: QdrantFake, operation: string, mine: () => Promise<unknown>, theirs: () => Promise<unknown>) => {
    const hold = f.holds.hold({ operation }, { phase: "before-response" });
    const pending = mine();
    await hold.reached;
    await theirs();
    hold.release();
    return pending;
  };

  it("an access count that landed and was built on by another server's count is not added a second time", async () => {
    const f = await fake();
    const [a, b] = [await open(f), await open(f)];
    await a.create(rec(40), await vec("counted"));
    for (let i = 0; i < 3; i++) a.noteAccess(rec(40).id, "2026-06-01T12:00:01.000Z");
    for (let i = 0; i < 5; i++) b.noteAccess(rec(40).id, "2026-06-01T12:00:02.000Z");
    await landedThenBuiltOn(f, "set_payload", () => a.flushAccess(), () => b.flushAccess());
    const stored = (await a.getRaw(rec(40).id))!;
    expect(stored.access_count).toBe(8);
    expect(stored.last_accessed_at).toBe("2026-06-01T12:00:02.000Z");
  });

  it("an access count that landed and was built on by an update is not added a second time, and the update keeps it", async () => {
    const f = await fake();
    const [a, b] = [await open(f), await open(f)];
    await a.create(rec(41), await vec("counted"));
    for (let i = 0; i < 4; i++) a.noteAccess(rec(41).id, "2026-06-01T12:00:01.000Z");
    await landedThenBuiltOn(f, "set_payload", () => a.flushAccess(), async () => {
      const read = (await b.getRaw(rec(41).id))!;
      await b.replace({ ...read, content: "edited on b" });
    });
    const stored = (await a.getRaw(rec(41).id))!;
    expect({ content: stored.content, count: stored.access_count }).toEqual({ content: "edited on b", count: 4 });
  });

  it("an update that landed and was built on by an access count reports success, not a conflict", async () => {
    const f = await fake();
    const [a, b] = [await open(f), await open(f)];
    await a.create(rec(42), await vec("edited"));
    const read = (await a.getRaw(rec(42).id))!;
    b.noteAccess(rec(42).id, "2026-06-01T12:00:01.000Z");
    const outcome = await landedThenBuiltOn(f, "upsert_points", () => a.replace({ ...read, content: "edited on a" }).then(() => "replaced", (e: unknown) => e), () => b.flushAccess());
    expect(outcome).toBe("replaced");
    const stored = (await a.getRaw(rec(42).id))!;
    expect({ content: stored.content, count: stored.access_count }).toEqual({ content: "edited on a", count: 1 });
  });

  it("a supersede whose claim was built on by an access count supersedes its target on that one claim", async () => {
    const f = await fake();
    // A lease short enough that a supersede mistaking its claim for lost would outwait it and claim again.
    const [a, b] = [await open(f, { claimLeaseMs: 1000 }), await open(f)];
    await a.create(rec(43), await vec("old head"));
    b.noteAccess(rec(43).id, "2026-06-01T12:00:01.000Z");
    const v = await vec("new head");
    await landedThenBuiltOn(f, "set_payload", () => a.supersede(rec(44), v, [rec(43).id], ALICE), () => b.flushAccess());
    const target = (await a.getRaw(rec(43).id))!;
    expect({ by: target.superseded_by, count: target.access_count }).toEqual({ by: rec(44).id, count: 1 });
    expect((await a.getRaw(rec(44).id))?.id).toBe(rec(44).id);
    // One claim from a, one access count from b.
    expect(f.requests.filter((r) => r.operation === "set_payload")).toHaveLength(2);
  });

  it("a trail keeps the eight revisions before the current one, newest first", () => {
    let stored: Record<string, unknown> = { revision: "r0" };
    for (let i = 1; i <= 12; i++) stored = { revision: `r${i}`, revision_trail: trailOver(stored) };
    expect(stored.revision_trail).toEqual(["r11", "r10", "r9", "r8", "r7", "r6", "r5", "r4"]);
    expect([landedIn(stored, "r12"), landedIn(stored, "r4"), landedIn(stored, "r3"), landedIn(undefined, "r12")]).toEqual([true, true, false, false]);
  });
});

describe("reads on the Qdrant store", () => {
  it("ranks a fixture the same as the embedded store (dense and lexical lanes fused the same way)", async () => {
    const f = await fake();
    const qd = await open(f);
    const dir = mkdtempSync(join(tmpdir(), "engram-qdrant-rank-"));
    dirs.push(dir);
    const emb = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    stores.push(emb);
    const texts = [
      "postgres connection pool exhausted under load",
      "use pgbouncer in transaction mode for the pool",
      "the deploy script needs the AWS region set",
      "zebra striping in the table component",
      "connection timeouts come from the load balancer idle timeout",
      "flaky test in the payments suite",
      "pool sizing: twice the cores plus spindles",
      "retry budget for the payments client",
    ];
    for (const [i, t] of texts.entries()) {
      const r = rec(100 + i, { content: t, scope: "repo:rank", tags: i % 2 ? ["db"] : ["ops"] });
      const v = await embedder.embedDocuments([t]);
      await emb.create(r, v[0]!);
      await qd.create(r, v[0]!);
    }
    for (const text of ["connection pool", "payments retry", "zebra", "load balancer timeouts"]) {
      const v = await vec(text);
      const e = (await emb.search(q({ scope: "repo:rank" }), v, text, 3)).map((s) => s.record.id);
      const d = (await qd.search(q({ scope: "repo:rank" }), v, text, 3)).map((s) => s.record.id);
      expect(d).toEqual(e);
    }
    expect(f.requests.filter((r) => r.operation === "query_points").length).toBeGreaterThan(0);
  });

  it("lists in created_at order with cursor and offset paging, counts and tag counts the same as the embedded store", async () => {
    const f = await fake();
    const qd = await open(f);
    const dir = mkdtempSync(join(tmpdir(), "engram-qdrant-list-"));
    dirs.push(dir);
    const emb = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    stores.push(emb);
    const v = await vec("x");
    for (let i = 0; i < 12; i++) {
      const r = rec(200 + i, { scope: "repo:list", created_at: new Date(1_700_000_000_000 + Math.floor(i / 3) * 1000).toISOString(), archived_at: i === 4 ? NOW.toISOString() : undefined });
      await emb.create(r, v);
      await qd.create(r, v);
    }
    for (const order of ["asc", "desc"] as const) {
      const pe = await emb.list(q({ scope: "repo:list" }), { order, offset: 2, limit: 5 });
      const pq = await qd.list(q({ scope: "repo:list" }), { order, offset: 2, limit: 5 });
      expect(pq.total).toBe(pe.total);
      expect(pq.records.map((r) => r.id)).toEqual(pe.records.map((r) => r.id));
    }
    expect(await qd.count(q({ scope: "repo:list", gate: null }))).toBe(12);
    expect(await qd.count(q({ scope: "repo:list", onlyGated: true, gate: null }))).toBe(1);
    expect(await qd.tagCounts(q({ scope: "repo:list" }))).toEqual(await emb.tagCounts(q({ scope: "repo:list" })));
    expect(await qd.scopeCounts(ALICE)).toEqual(await emb.scopeCounts(ALICE));
  });

  it("page sizes follow the byte budget, and one record over the budget by itself is response_too_large", async () => {
    const f = await fake();
    const qd = await open(f, { rpcByteBudget: 4096, fullRecordCeiling: 1024 });
    expect(qd.pageSize("full")).toBe(4);
    await qd.create(rec(300, { content: "small" }), await vec("a"));
    await qd.create(rec(301, { content: "x".repeat(8000) }), await vec("b"));
    expect((await qd.getRaw(rec(300).id))!.content).toBe("small");
    await expect(qd.getRaw(rec(301).id)).rejects.toBeInstanceOf(ResponseTooLargeError);
  });
});

describe("faults on the Qdrant store", () => {
  it("a 500, a full disk, a read-only collection and a 429 are unavailable with the fixed text, never Qdrant's", async () => {
    const f = await fake();
    const qd = await open(f);
    const cases = [
      { fault: { kind: "status", status: 500, message: "Service internal error: secret-collection-name" }, text: "unavailable: the store cannot accept writes now; retry later" },
      { fault: { kind: "out-of-disk" }, text: "unavailable: the store cannot accept writes now; retry later" },
      { fault: { kind: "read-only" }, text: "unavailable: the store cannot accept writes now; retry later" },
      { fault: { kind: "rate-limited", retryAfterSeconds: 1 }, text: "unavailable: the store cannot accept writes now; retry later" },
    ] as const;
    for (const [i, c] of cases.entries()) {
      f.faults.inject({ match: { operation: "upsert_points" }, fault: c.fault as never });
      const err = await qd.create(rec(400 + i), await vec("x")).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(QdrantUnavailableError);
      expect((err as Error).message).toBe(c.text);
    }
    f.faults.inject({ match: { operation: "get_points" }, fault: { kind: "status", status: 503 } });
    const read = await qd.getRaw(rec(1).id).catch((e: unknown) => e);
    expect((read as QdrantUnavailableError).unavailable).toEqual({ reason: "store_cannot_read", cause: "http_503", logged: false });
  });

  it("a refused connection is unavailable and a request that never answers is deadline_exceeded", async () => {
    const f = await fake();
    const qd = await open(f, { timeoutMs: 200 });
    f.faults.inject({ match: { operation: "count_points" }, fault: { kind: "hang" } });
    const slow = await qd.count(q()).catch((e: unknown) => e);
    expect((slow as { code?: unknown }).code).toBe(4); // Code.DeadlineExceeded
    expect((slow as Error).message).toContain(STORE_DEADLINE_TEXT);
    await f.refuseConnections();
    const down = await qd.count(q()).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(QdrantUnavailableError);
    expect((down as QdrantUnavailableError).unavailable?.reason).toBe("store_cannot_read");
    await f.acceptConnections();
  });
});
