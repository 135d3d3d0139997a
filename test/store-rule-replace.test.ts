/**
 * store_rule / StoreRule with the id of an existing rule replaces that rule
 * in place (reference §4.6: OwnedOrAbsent, the short id carried forward),
 * on Connect and on MCP, and either lane sees what the other wrote. It used
 * to write the rule as a new record, so the taken id came back as
 * `internal error` on every lane. Someone else's rule stays `not found`.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runningEngram, texts, type RunningEngram, type ToolResult } from "./fixtures/mcp-harness.js";

const ALICE = "tok-rule-alice";
const BOB = "tok-rule-bob";
const SCOPE = "rule:repo:replace";

let srv: RunningEngram;
let mcp: Client;

beforeAll(async () => {
  srv = await runningEngram({ ENGRAM_AUTH_TOKENS: `alice=${ALICE},bob=${BOB}` });
  mcp = await srv.mcp(ALICE);
});
afterAll(async () => srv?.close());

async function tool(name: string, args: Record<string, unknown>, client = mcp): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await tool(name, args);
  if (r.isError) throw new Error(`${name} failed: ${texts(r).join(" | ")}`);
  return r.structuredContent as Record<string, unknown>;
}

/** What a rule reads as after a write: the fields a replace sets or keeps. */
async function ruleAsStored(id: string) {
  const m = (await srv.connect(ALICE).getMemory({ id })).memory!;
  return {
    id: m.id,
    short_id: m.shortId,
    content: m.content,
    summary: m.summary,
    tags: m.tags,
    scope: m.scope,
    category: m.category,
    source: m.source,
    visibility: m.visibility,
    summary_source: m.summarySource,
    created_at: m.createdAt?.seconds,
  };
}

async function rulesInScope(scope: string): Promise<string[]> {
  return (await srv.connect(ALICE).listRules({ scopes: [scope] })).rules.map((r) => r.id);
}

describe("storing a rule under the id of an existing one replaces it in place", () => {
  it("Connect: by full id, the same id and short id, the new text, created_at and the rule's fixed fields kept", async () => {
    const scope = `${SCOPE}-connect`;
    const rpc = srv.connect(ALICE);
    const first = await rpc.storeRule({ content: "run tsc before pushing", scope, summary: "run tsc", tags: ["ci"] });
    const before = await ruleAsStored(first.id);
    const again = await rpc.storeRule({ content: "run tsc and lint before pushing", scope, summary: "run tsc and lint", tags: ["ci", "lint"], id: first.id });
    expect({ id: again.id, shortId: again.shortId }).toEqual({ id: first.id, shortId: first.shortId });
    expect(await ruleAsStored(first.id)).toEqual({
      ...before,
      content: "run tsc and lint before pushing",
      summary: "run tsc and lint",
      tags: ["ci", "lint"],
    });
    expect(before).toMatchObject({ category: "rule", source: "user-said", visibility: "shared", summary_source: "client" });
    expect(await rulesInScope(scope)).toEqual([first.id]);
  });

  it("MCP: by short id, the same answer, and Connect reads the replacement", async () => {
    const scope = `${SCOPE}-mcp`;
    const first = await ok("store_rule", { content: "squash before merging", scope, summary: "squash" });
    const before = await ruleAsStored(first.id as string);
    const again = await ok("store_rule", { content: "rebase, then squash before merging", scope, summary: "rebase and squash", id: first.short_id });
    expect(again).toEqual({ id: first.id, short_id: first.short_id });
    expect(await ruleAsStored(first.id as string)).toEqual({ ...before, content: "rebase, then squash before merging", summary: "rebase and squash" });
    expect(await rulesInScope(scope)).toEqual([first.id]);
  });

  it("across lanes: a rule stored on Connect is replaced on MCP, and the reverse, any number of times", async () => {
    const scope = `${SCOPE}-both`;
    const first = await srv.connect(ALICE).storeRule({ content: "v1", scope, summary: "v1" });
    for (let i = 2; i <= 5; i++) {
      const args = { content: `v${i}`, scope, summary: `v${i}` };
      const r =
        i % 2 === 0
          ? await ok("store_rule", { ...args, id: first.id })
          : await srv.connect(ALICE).storeRule({ ...args, id: first.shortId }).then((x) => ({ id: x.id, short_id: x.shortId }));
      expect(r).toEqual({ id: first.id, short_id: first.shortId });
      expect((await ok("get_memory", { id: first.id })).content).toBe(`v${i}`);
    }
    expect(await rulesInScope(scope)).toEqual([first.id]);
  });

  it("recall finds the one replaced rule by its new words", async () => {
    const scope = `${SCOPE}-recall`;
    const first = await srv.connect(ALICE).storeRule({ content: "pin the zebrafish toolchain", scope, summary: "pin toolchain" });
    await ok("store_rule", { content: "pin the marmoset toolchain", scope, summary: "pin toolchain", id: first.id });
    const hits = (await srv.connect(ALICE).searchMemories({ query: "marmoset", scope, k: 5n, full: true })).memories;
    expect(hits.map((m) => ({ id: m.id, content: m.content }))).toEqual([{ id: first.id, content: "pin the marmoset toolchain" }]);
  });

  it("another owner's rule id is not found on both lanes, and that rule is unchanged", async () => {
    const scope = `${SCOPE}-owner`;
    const theirs = await srv.connect(BOB).storeRule({ content: "bob's rule", scope, summary: "bob" });
    const args = { content: "taken over", scope, summary: "mine", id: theirs.id };
    let rpcMessage = "";
    try {
      await srv.connect(ALICE).storeRule(args);
    } catch (err) {
      const e = ConnectError.from(err);
      expect(e.code).toBe(Code.NotFound);
      rpcMessage = e.rawMessage;
    }
    expect(rpcMessage).toBe(`not found: ${theirs.id}`);
    const r = await tool("store_rule", args);
    expect({ isError: r.isError, text: texts(r) }).toEqual({ isError: true, text: [rpcMessage] });
    expect((await srv.connect(BOB).getMemory({ id: theirs.id })).memory?.content).toBe("bob's rule");
  });

  it("an id of the caller's own memory is refused as a rule's or a discovery's on both lanes, and the memory is unchanged", async () => {
    const mine = await srv.connect(ALICE).storeMemory({ content: "a decision to keep", scope: "project:replace-kinds", source: "user-said", category: "decision" });
    const asRule = { content: "taken over", scope: `${SCOPE}-kinds`, summary: "mine", id: mine.id };
    const asDiscovery = { content: "taken over", kind: "fact", citations: [{ kind: "file", ref: "a.ts" }], scope: "discovery:repo:kinds", id: mine.shortId };
    const refusal = async (call: Promise<unknown>) =>
      call.then(
        () => undefined,
        (err: unknown) => {
          const e = ConnectError.from(err);
          return { code: e.code, message: e.rawMessage };
        },
      );
    expect(await refusal(srv.connect(ALICE).storeRule(asRule))).toEqual({ code: Code.FailedPrecondition, message: "field=id hint=not_applicable: id names a record that is not a rule" });
    expect(await refusal(srv.connect(ALICE).storeDiscovery(asDiscovery))).toEqual({ code: Code.FailedPrecondition, message: "field=id hint=not_applicable: id names a record that is not a discovery" });
    for (const [name, args, text] of [
      ["store_rule", asRule, "field=id hint=not_applicable: id names a record that is not a rule"],
      ["store_discovery", asDiscovery, "field=id hint=not_applicable: id names a record that is not a discovery"],
    ] as const) {
      const r = await tool(name, args);
      expect({ isError: r.isError, text: texts(r) }).toEqual({ isError: true, text: [text] });
    }
    const after = (await srv.connect(ALICE).getMemory({ id: mine.id })).memory!;
    expect({ content: after.content, category: after.category, scope: after.scope }).toEqual({ content: "a decision to keep", category: "decision", scope: "project:replace-kinds" });
  });

  it("answered no internal error on the way", () => {
    expect(srv.log.text()).not.toContain("RevisionConflictError");
    expect(srv.log.text()).not.toContain("internal error");
  });
});
