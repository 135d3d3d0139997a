import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArchiveOutcome } from "../src/gen/engram/v1/engram_pb.js";
import { idempotentPointId } from "../src/core/idempotency.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

const rec = (content: string) => ({ content, scope: "repo:arc", source: "user-said", category: "decision" });
const rows = (r: { results: { requested: string; id: string; outcome: ArchiveOutcome }[] }) =>
  r.results.map((x) => [x.requested, x.id, ArchiveOutcome[x.outcome]]);

describe("archive then restore a mixed batch", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: "alice=tok-a,bob=tok-b" } });
  });
  afterAll(async () => server.close());

  it("answers one outcome per id, in order, duplicates per occurrence, not_found rows without an id", async () => {
    const alice = server.client("tok-a");
    const bob = server.client("tok-b");
    const own = await alice.storeMemory(rec("own"));
    const done = await alice.storeMemory(rec("already archived"));
    await alice.archiveMemory({ ids: [done.id] });
    const foreign = await bob.storeMemory(rec("bob's"));
    const missing = "0000000000";

    const batch = [own.shortId, foreign.shortId, missing, own.id, done.shortId];
    const archived = await alice.archiveMemory({ ids: batch });
    expect(rows(archived)).toEqual([
      [own.shortId, own.id, "ARCHIVED"],
      [foreign.shortId, "", "NOT_FOUND"],
      [missing, "", "NOT_FOUND"],
      [own.id, own.id, "ALREADY_ARCHIVED"],
      [done.shortId, done.id, "ALREADY_ARCHIVED"],
    ]);
    // Archived records leave recall but stay fetchable by id; bob's is untouched.
    expect((await alice.listMemories({ scope: "repo:arc" })).memories.map((m) => m.id)).toEqual([]);
    expect((await alice.getMemory({ id: own.id })).memory!.archivedAt).toBeDefined();
    expect((await bob.getMemory({ id: foreign.id })).memory!.archivedAt).toBeUndefined();

    const restored = await alice.restoreMemory({ ids: batch });
    expect(rows(restored)).toEqual([
      [own.shortId, own.id, "RESTORED"],
      [foreign.shortId, "", "NOT_FOUND"],
      [missing, "", "NOT_FOUND"],
      [own.id, own.id, "NOT_ARCHIVED"],
      [done.shortId, done.id, "RESTORED"],
    ]);
    const back = (await alice.listMemories({ scope: "repo:arc" })).memories.map((m) => m.id).sort();
    expect(back).toEqual([own.id, done.id].sort());
  });

  it("include_archived relaxes only the archive condition and the hidden count says what the gate hid", async () => {
    const alice = server.client("tok-a");
    const a = await alice.storeMemory({ ...rec("to hide"), scope: "repo:gate" });
    await alice.storeMemory({ ...rec("visible"), scope: "repo:gate" });
    await alice.archiveMemory({ ids: [a.id] });
    const gated = await alice.listMemories({ scope: "repo:gate" });
    expect(gated.memories).toHaveLength(1);
    expect(gated.recallGateHidden).toMatchObject({ total: 1n, archived: 1n, superseded: 0n, expired: 0n, scheduled: 0n });
    const all = await alice.listMemories({ scope: "repo:gate", includeArchived: true });
    expect(all.memories).toHaveLength(2);
    expect(all.recallGateHidden?.total).toBe(0n);
  });

  it("a rule replaced in place by id stays archived, and a superseded discovery stays superseded", async () => {
    const alice = server.client("tok-a");
    const rule = await alice.storeRule({ content: "lint before a commit", summary: "lint first", scope: "rule:repo:arc" });
    await alice.archiveMemory({ ids: [rule.id] });
    await alice.storeRule({ id: rule.id, content: "lint and test before a commit", summary: "lint and test", scope: "rule:repo:arc" });
    expect((await alice.listRules({ scopes: ["rule:repo:arc"] })).rules).toEqual([]);
    expect((await alice.getMemory({ id: rule.id })).memory!.archivedAt).toBeDefined();

    const citations = [{ kind: "file", ref: "src/a.ts", locator: "1", pin: "", excerpt: "" }];
    const d = await alice.storeDiscovery({ content: "config lives in a.ts", kind: "map", scope: "discovery:repo:arc", citations });
    const next = await alice.supersedeMemory({ ...rec("config moved to b.ts"), supersedes: [d.id] });
    await alice.storeDiscovery({ id: d.id, content: "config lives in c.ts", kind: "map", scope: "discovery:repo:arc", citations });
    expect((await alice.getMemory({ id: d.id })).memory).toMatchObject({ content: "config lives in c.ts", supersededBy: next.id });
  });

  it("no caller can seed the id another owner's idempotency key derives, so that owner's first keyed write lands", async () => {
    const alice = server.client("tok-a");
    const bob = server.client("tok-b");
    const bobs = idempotentPointId("bob", "repo:keyed", "K");
    const citations = [{ kind: "file", ref: "src/a.ts", locator: "1", pin: "", excerpt: "" }];
    const refusals = await Promise.all([
      alice.storeDiscovery({ id: bobs, content: "squat", kind: "map", scope: "discovery:repo:x", citations }).then(() => "stored", (e: ConnectError) => `${Code[e.code]} ${e.rawMessage}`),
      alice.storeRule({ id: bobs, content: "squat", summary: "squat", scope: "rule:repo:x" }).then(() => "stored", (e: ConnectError) => `${Code[e.code]} ${e.rawMessage}`),
    ]);
    const envelope = "InvalidArgument field=id hint=format: id must not be a name-based (version 5) UUID: those are reserved for idempotency keys";
    expect(refusals).toEqual([envelope, envelope]);
    const first = await bob.storeMemory({ ...rec("bob's keyed write"), scope: "repo:keyed", idempotencyKey: "K" });
    expect(first.id).toBe(bobs);
  });
});
