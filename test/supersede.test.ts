import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerSubject } from "../src/core/index.js";
import { snapshot, startTestServer, type TestServer } from "./helpers/engram-server.js";

const rec = (content: string) => ({ content, scope: "repo:s", source: "user-said", category: "decision" });

async function failure(p: Promise<unknown>): Promise<ConnectError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ConnectError);
  return e as ConnectError;
}

describe("supersede: one failure class per response, offenders in caller order, nothing written", () => {
  let server: TestServer;
  let alice: ReturnType<TestServer["client"]>;
  let bob: ReturnType<TestServer["client"]>;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: "alice=tok-a,bob=tok-b" } });
    alice = server.client("tok-a");
    bob = server.client("tok-b");
  });
  afterAll(async () => server.close());

  it("set shape: a blank entry is an envelope naming supersedes, never a value", async () => {
    const live = await alice.storeMemory(rec("live"));
    const before = await snapshot(server.store);
    const e = await failure(alice.supersedeMemory({ ...rec("fix"), supersedes: [live.shortId, ""] }));
    expect(e.rawMessage).toBe("field=supersedes hint=required: supersedes entries must not be blank");
    expect(Code[e.code]).toBe("InvalidArgument");
    expect(await snapshot(server.store)).toBe(before);
  });

  it("addressability: a foreign and a missing short id are named together, in the order sent", async () => {
    const mine = await alice.storeMemory(rec("mine"));
    const foreign = await bob.storeMemory(rec("bob's"));
    const missing = "0000000000";
    const before = await snapshot(server.store);
    const e = await failure(alice.supersedeMemory({ ...rec("fix"), supersedes: [missing, mine.shortId, foreign.shortId] }));
    expect(e.rawMessage).toBe(`not found: ${missing}, ${foreign.shortId}`);
    expect(Code[e.code]).toBe("NotFound");
    expect(await snapshot(server.store)).toBe(before);
  });

  it("rule targets: two rules are named in the order sent", async () => {
    const s = ownerSubject("alice");
    const r1 = await server.core.storeRule(s, { content: "rule one", scope: "rule:repo:s", summary: "one" });
    const r2 = await server.core.storeRule(s, { content: "rule two", scope: "rule:repo:s", summary: "two" });
    const live = await alice.storeMemory(rec("live"));
    const before = await snapshot(server.store);
    const e = await failure(alice.supersedeMemory({ ...rec("fix"), supersedes: [r2.short_id, live.shortId, r1.short_id] }));
    expect(e.rawMessage).toBe(`rules are always shared: ${r2.short_id}, ${r1.short_id} — delete the rule instead of superseding it`);
    expect(Code[e.code]).toBe("FailedPrecondition");
    expect(await snapshot(server.store)).toBe(before);
  });

  it("already superseded: two old heads are named in the order sent", async () => {
    const a = await alice.storeMemory(rec("a"));
    const b = await alice.storeMemory(rec("b"));
    await alice.supersedeMemory({ ...rec("a and b, merged"), supersedes: [a.id, b.id] });
    const live = await alice.storeMemory(rec("live"));
    const before = await snapshot(server.store);
    const e = await failure(alice.supersedeMemory({ ...rec("again"), supersedes: [b.shortId, live.shortId, a.shortId] }));
    expect(e.rawMessage).toBe(`target is already superseded: ${b.shortId}, ${a.shortId}`);
    expect(Code[e.code]).toBe("FailedPrecondition");
    expect(await snapshot(server.store)).toBe(before);
  });

  it("a success back-stamps every target and the new record lists them, deduplicated in caller order", async () => {
    const a = await alice.storeMemory(rec("old a"));
    const b = await alice.storeMemory(rec("old b"));
    const r = await alice.supersedeMemory({ ...rec("new"), supersedes: [b.shortId, a.id, b.id] });
    const merged = (await alice.getMemory({ id: r.id })).memory!;
    expect(merged.supersedes).toEqual([b.id, a.id]);
    expect((await alice.getMemory({ id: a.id })).memory!.supersededBy).toBe(r.id);
    expect((await alice.getMemory({ id: b.id })).memory!.supersededBy).toBe(r.id);
    const listed = await alice.listMemories({ scope: "repo:s" });
    expect(listed.memories.map((m) => m.id)).not.toContain(a.id);
  });

  it("validate_only returns the resolved plan and writes nothing", async () => {
    const a = await alice.storeMemory(rec("va"));
    const before = await snapshot(server.store);
    const r = await alice.supersedeMemory({ ...rec("plan"), supersedes: [a.shortId, a.id], validateOnly: true });
    expect(r.validated).toBe(true);
    expect(r.supersedes).toEqual([a.id]);
    expect(r.targets.map((t) => t.id)).toEqual([a.id]);
    expect(r.id).toBe("");
    expect(await snapshot(server.store)).toBe(before);
  });

  it("a keyed retry replays before the already-superseded check", async () => {
    const a = await alice.storeMemory(rec("keyed target"));
    const first = await alice.supersedeMemory({ ...rec("keyed fix"), supersedes: [a.id], idempotencyKey: "k-1" });
    const again = await alice.supersedeMemory({ ...rec("keyed fix"), supersedes: [a.id], idempotencyKey: "k-1" });
    expect(again.id).toBe(first.id);
    expect(again.shortId).toBe(first.shortId);
    const other = await failure(alice.supersedeMemory({ ...rec("different"), supersedes: [a.id], idempotencyKey: "k-1" }));
    expect(Code[other.code]).toBe("AlreadyExists");
  });

  it("two concurrent supersedes of one head: exactly one wins, the loser is told the target is already superseded", async () => {
    const head = await alice.storeMemory(rec("contested head"));
    const results = await Promise.allSettled([
      alice.supersedeMemory({ ...rec("first writer"), supersedes: [head.shortId] }),
      alice.supersedeMemory({ ...rec("second writer"), supersedes: [head.shortId] }),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0]!.reason as ConnectError).rawMessage).toBe(`target is already superseded: ${head.shortId}`);
    const winner = (won[0] as PromiseFulfilledResult<{ id: string }>).value.id;
    expect((await alice.getMemory({ id: head.id })).memory!.supersededBy).toBe(winner);
    const heads = (await alice.listMemories({ scope: "repo:s", includeSuperseded: false })).memories.filter((m) =>
      ["first writer", "second writer"].includes(m.summary),
    );
    expect(heads).toHaveLength(1);
  });
});
