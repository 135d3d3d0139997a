import { ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../src/app.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";
import { captureLog } from "./helpers/capture-log.js";

/**
 * Two engram servers (the real serve(): Connect, the core, the Qdrant
 * store) in this process, each with its own store instance, on one
 * collection of the loopback fake: what two servers behind a load balancer do.
 */
describe("two engram servers on one Qdrant collection", () => {
  let fake: QdrantFake;
  const servers: Awaited<ReturnType<typeof serve>>[] = [];
  const clients: Client<typeof EngramService>[] = [];

  beforeAll(async () => {
    fake = await startQdrantFake({ warn: () => {} });
    for (let i = 0; i < 2; i++) {
      const s = await serve({
        listenAddr: "127.0.0.1:0",
        env: { ENGRAM_QDRANT_URL: fake.url, ENGRAM_QDRANT_COLLECTION: "two-servers" },
        embedder: new FakeEmbedder(32),
        log: captureLog(),
      });
      servers.push(s);
      clients.push(createClient(EngramService, createConnectTransport({ baseUrl: s.server.url, httpVersion: "1.1" })));
    }
  });

  afterAll(async () => {
    for (const s of servers) await s.close();
    expect(fake.schemaViolations).toEqual([]);
    await fake.close();
  });

  it("both run on the Qdrant store", () => {
    expect(servers.map((s) => s.engram.deps.store.kind)).toEqual(["qdrant", "qdrant"]);
  });

  it("a record written through one is read through the other at once", async () => {
    const stored = await clients[0]!.storeMemory({ content: "the deploy needs AWS_REGION", scope: "repo:two", source: "user-said", category: "convention" });
    const got = await clients[1]!.getMemory({ id: stored.id });
    expect(got.memory?.content).toBe("the deploy needs AWS_REGION");
  });

  it("100 simultaneous supersedes of one target from both: exactly one wins, the rest get `target is already superseded: <id>`", async () => {
    const target = await clients[0]!.storeMemory({ content: "old head", scope: "repo:two", source: "user-said", category: "decision" });
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        clients[i % 2]!.supersedeMemory({ content: `new head ${i}`, scope: "repo:two", source: "user-said", category: "decision", supersedes: [target.id] }),
      ),
    );
    const messages = new Set(results.flatMap((r) => (r.status === "rejected" ? [(r.reason as ConnectError).rawMessage] : [])));
    expect([...messages]).toEqual([`target is already superseded: ${target.id}`]);
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    // The heads of the scope: the first test's record and the winner; the target is hidden, no loser wrote anything.
    const heads = await clients[1]!.listMemories({ scope: "repo:two" });
    expect(heads.total).toBe(2n);
    expect(heads.memories.map((m) => m.id)).toContain(won[0]!.value.id);
    expect(heads.memories.map((m) => m.id)).not.toContain(target.id);
  });

  it("a keyed StoreMemory raced from both with different content: one succeeds, the other gets already_exists; same content: the same id", async () => {
    const base = { scope: "repo:keyed", source: "user-said", category: "decision" };
    const diff = await Promise.allSettled([
      clients[0]!.storeMemory({ ...base, content: "from one", idempotencyKey: "race-diff" }),
      clients[1]!.storeMemory({ ...base, content: "from two", idempotencyKey: "race-diff" }),
    ]);
    expect(diff.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = (diff.find((r) => r.status === "rejected") as PromiseRejectedResult).reason as ConnectError;
    expect(lost.code).toBe(6); // Code.AlreadyExists
    expect(lost.rawMessage).toBe("idempotency_key was already used with different content");
    const same = await Promise.all([
      clients[0]!.storeMemory({ ...base, content: "same", idempotencyKey: "race-same" }),
      clients[1]!.storeMemory({ ...base, content: "same", idempotencyKey: "race-same" }),
    ]);
    expect(same[1].id).toBe(same[0].id);
  });
});
