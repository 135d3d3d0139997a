import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_IDENTITY } from "../src/embed/local-embedder.js";
import { EngramService, Visibility } from "../src/gen/engram/v1/engram_pb.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";
import { startServeProcess, type ServeProcess } from "./helpers/serve-process.js";

/**
 * Two real `engram serve` processes (the built binary, the local model) on
 * one collection of the loopback fake: what two stateless servers behind a
 * load balancer do. They share nothing but the collection, so every race
 * below is decided by the Qdrant store's conditional writes, not by a lock
 * in one process.
 */
describe("two engram serve processes on one Qdrant collection", { timeout: 180_000 }, () => {
  let fake: QdrantFake;
  const dirs: string[] = [];
  let servers: ServeProcess[] = [];
  let clients: Client<typeof EngramService>[] = [];

  beforeAll(async () => {
    fake = await startQdrantFake();
    const env = () => {
      const dataDir = mkdtempSync(join(tmpdir(), "engram-two-"));
      dirs.push(dataDir);
      // Each server embeds its 50 supersedes at once; the default queue (32) would turn some away as busy.
      return { ENGRAM_DATA_DIR: dataDir, ENGRAM_QDRANT_URL: fake.url, ENGRAM_QDRANT_COLLECTION: "two-servers", ENGRAM_EMBED_QUEUE: "128" };
    };
    // Started together, so both find the collection missing and race to create it.
    servers = await Promise.all([startServeProcess(env()), startServeProcess(env())]);
    clients = servers.map((s) => createClient(EngramService, createConnectTransport({ baseUrl: s.url, httpVersion: "1.1" })));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    expect(fake.schemaViolations).toEqual([]);
    await fake.close();
  });

  it("both are separate processes serving from the Qdrant store", () => {
    expect(new Set(servers.map((s) => s.child.pid)).size).toBe(2);
    for (const s of servers) expect(s.stderr()).toMatch(/engram listening.*"store":"qdrant"/);
  });

  it("a record written through one is read through the other at once", async () => {
    const stored = await clients[0]!.storeMemory({ content: "the deploy needs AWS_REGION", scope: "repo:two", source: "user-said", category: "convention" });
    const got = await clients[1]!.getMemory({ id: stored.id });
    expect(got.memory?.content).toBe("the deploy needs AWS_REGION");
    const byShortId = await clients[1]!.getMemory({ id: stored.shortId });
    expect(byShortId.memory?.id).toBe(stored.id);
  });

  it("100 simultaneous supersedes of one target from both: exactly one wins, the rest get `target is already superseded: <id>`", async () => {
    const target = await clients[0]!.storeMemory({ content: "old head", scope: "repo:two", source: "user-said", category: "decision" });
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        clients[i % 2]!.supersedeMemory({ content: `new head ${i}`, scope: "repo:two", source: "user-said", category: "decision", supersedes: [target.id] }),
      ),
    );
    const rejected = results.flatMap((r) => (r.status === "rejected" ? [ConnectError.from(r.reason)] : []));
    expect(new Set(rejected.map((e) => e.rawMessage))).toEqual(new Set([`target is already superseded: ${target.id}`]));
    expect(new Set(rejected.map((e) => e.code))).toEqual(new Set([Code.FailedPrecondition]));
    const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(won).toHaveLength(1);
    // Losers came through both servers, so the race really spanned the two processes.
    const lostBy = new Set(results.flatMap((r, i) => (r.status === "rejected" ? [i % 2] : [])));
    expect(lostBy).toEqual(new Set([0, 1]));
    // Both servers see the same heads: the first test's record and the winner; the target is hidden, no loser wrote anything.
    for (const c of clients) {
      const heads = await c.listMemories({ scope: "repo:two" });
      expect(heads.total).toBe(2n);
      expect(heads.memories.map((m) => m.id).sort()).toContain(won[0]!.id);
      expect(heads.memories.map((m) => m.id)).not.toContain(target.id);
    }
    const old = await clients[1]!.getMemory({ id: target.id });
    expect(old.memory?.supersededBy).toBe(won[0]!.id);
  });

  it("a keyed StoreMemory raced from both with different content: one succeeds, the other gets already_exists", async () => {
    const base = { scope: "repo:keyed", source: "user-said", category: "decision" };
    const diff = await Promise.allSettled([
      clients[0]!.storeMemory({ ...base, content: "from one", idempotencyKey: "race-diff" }),
      clients[1]!.storeMemory({ ...base, content: "from two", idempotencyKey: "race-diff" }),
    ]);
    const won = diff.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(won).toHaveLength(1);
    const lost = ConnectError.from((diff.find((r) => r.status === "rejected") as PromiseRejectedResult).reason);
    expect(lost.code).toBe(Code.AlreadyExists);
    expect(lost.rawMessage).toBe("idempotency_key was already used with different content");
    // The record that stands is the winner's, through either server.
    const winner = diff[0]!.status === "fulfilled" ? "from one" : "from two";
    for (const c of clients) expect((await c.getMemory({ id: won[0]!.id })).memory?.content).toBe(winner);
  });

  it("a keyed StoreMemory raced from both with the same content: both return the same id, and one record exists", async () => {
    const base = { scope: "repo:keyed-same", source: "user-said", category: "decision" };
    const same = await Promise.all([
      clients[0]!.storeMemory({ ...base, content: "same", idempotencyKey: "race-same" }),
      clients[1]!.storeMemory({ ...base, content: "same", idempotencyKey: "race-same" }),
    ]);
    expect(same[1].id).toBe(same[0].id);
    expect((await clients[1]!.listMemories({ scope: "repo:keyed-same" })).total).toBe(1n);
  });

  it("an update through one server and a visibility change and an archive through the other, all at once, all land", async () => {
    const ids = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => (await clients[i % 2]!.storeMemory({ content: `shared note ${i}`, scope: "repo:mixed", source: "user-said", category: "convention" })).id),
    );
    await Promise.all(
      ids.flatMap((id, i) => [
        clients[0]!.updateMemory({ id, tags: [`t-${i}`], updateMask: { paths: ["tags"] } }),
        clients[1]!.setVisibility({ id, visibility: Visibility.SHARED }),
        clients[1]!.archiveMemory({ ids: [id] }),
      ]),
    );
    for (const [i, id] of ids.entries()) {
      const m = (await clients[i % 2]!.getMemory({ id })).memory!;
      expect({ tags: m.tags, visibility: m.visibility, archived: m.archivedAt !== undefined }, id).toEqual({ tags: [`t-${i}`], visibility: "shared", archived: true });
    }
  });

  it("an update racing a supersede of the same record from the other server never wipes superseded_by", async () => {
    for (let i = 0; i < 5; i++) {
      const old = await clients[0]!.storeMemory({ content: `head ${i}`, scope: "repo:race-update", source: "user-said", category: "decision" });
      const [, next] = await Promise.all([
        clients[0]!.updateMemory({ id: old.id, tags: ["edited"], updateMask: { paths: ["tags"] } }).catch((e: unknown) => ConnectError.from(e)),
        clients[1]!.supersedeMemory({ content: `head ${i} again`, scope: "repo:race-update", source: "user-said", category: "decision", supersedes: [old.id] }),
      ]);
      expect((await clients[0]!.getMemory({ id: old.id })).memory?.supersededBy).toBe(next.id);
    }
  });

  it("gets counted on both servers all land: after both stop cleanly, the record's access count is the sum", async () => {
    const stored = await clients[0]!.storeMemory({ content: "read from both sides", scope: "repo:counted", source: "user-said", category: "convention" });
    await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 2]!.getMemory({ id: stored.id })));
    // Each server batches its counts and writes them on its own (compare-and-swap per record); a clean stop flushes them.
    expect(await Promise.all(servers.map((s) => s.stop()))).toEqual([0, 0]);
    const store = await QdrantStore.open({ url: fake.url, collection: "two-servers", dim: LOCAL_IDENTITY.dim });
    try {
      expect((await store.getRaw(stored.id))?.access_count).toBe(20);
    } finally {
      await store.close();
    }
  });
});
