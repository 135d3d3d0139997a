/**
 * Lane parity: every operation the MCP lane implements is driven through the
 * MCP tool (Streamable HTTP) and through the Connect RPC against one running
 * server and one store. Both lanes must see the same records, and the same
 * invalid input must produce byte-identical envelopes and sentinels. The
 * CLI is the third lane: the same requests through the `engram` binary
 * print the same line and exit by the same code (see the last block).
 */
import { randomUUID } from "node:crypto";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client as ConnectClient } from "@connectrpc/connect";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_TIER_RULES, EXIT, RULES, exitForConnectCode, ruleError, type RuleId } from "../src/argerror/index.js";
import { ArchiveOutcome, EdgeType, EngramService, Visibility, type Memory } from "../src/gen/engram/v1/engram_pb.js";
import { runningEngram, texts, type RunningEngram, type ToolResult } from "./fixtures/mcp-harness.js";
import { ACCEPTANCES, CLI_TIER_EXCEPTIONS, CONNECT_REJECTIONS, JSON_INPUTS, REJECTIONS, type Made } from "./fixtures/lane-cases.js";
import { runEngram } from "./helpers/run-engram.js";

type Rpc = ConnectClient<typeof EngramService>;

let srv: RunningEngram;
let mcp: Client;
let rpc: Rpc;

beforeAll(async () => {
  srv = await runningEngram();
  mcp = await srv.mcp();
  rpc = srv.connect();
});
afterAll(async () => srv.close());

const call = (name: string, args: Record<string, unknown>) => mcp.callTool({ name, arguments: args }) as Promise<ToolResult>;

async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await call(name, args);
  if (r.isError) throw new Error(`${name} failed: ${texts(r).join(" | ")}`);
  return r.structuredContent as Record<string, unknown>;
}

/** The rejection text an MCP call produced (and that it was a rejection with no structured result). */
async function mcpRejection(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await call(name, args);
  expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
  expect("structuredContent" in r).toBe(false);
  const t = texts(r);
  expect(t).toHaveLength(1);
  return t[0]!;
}

/** The raw message and code a Connect call was rejected with. */
async function rpcRejection(fn: () => Promise<unknown>): Promise<{ message: string; code: Code }> {
  try {
    await fn();
  } catch (err) {
    const e = ConnectError.from(err);
    return { message: e.rawMessage, code: e.code };
  }
  throw new Error("the Connect call succeeded");
}

/** The fields both lanes show of a full record (access counters move on every get, so they are left out). */
function fromPb(m: Memory | undefined) {
  if (!m) throw new Error("no memory");
  return {
    id: m.id,
    short_id: m.shortId,
    content: m.content,
    scope: m.scope,
    source: m.source,
    category: m.category,
    tags: m.tags,
    repo: m.repo,
    workspace: m.workspace,
    worktree: m.worktree,
    base_dir: m.baseDir,
    summary: m.summary,
    summary_source: m.summarySource,
    visibility: m.visibility,
    owner: m.owner,
    actor: m.actor,
    created_at: m.createdAt ? Number(m.createdAt.seconds) * 1000 + Math.round(m.createdAt.nanos / 1e6) : undefined,
    schema_version: m.schemaVersion,
  };
}

function fromMcp(v: Record<string, unknown>) {
  return {
    id: v.id,
    short_id: v.short_id,
    content: v.content,
    scope: v.scope,
    source: v.source,
    category: v.category,
    tags: v.tags,
    repo: v.repo,
    workspace: v.workspace,
    worktree: v.worktree,
    base_dir: v.base_dir,
    summary: v.summary,
    summary_source: v.summary_source,
    visibility: v.visibility,
    owner: v.owner,
    actor: v.actor,
    created_at: new Date(v.created_at as string).getTime(),
    schema_version: v.schema_version,
  };
}

/** A compact row as both lanes show it. */
const rowPb = (m: Memory) => ({ id: m.id, short_id: m.shortId, summary: m.summary, scope: m.scope, category: m.category, tags: m.tags });
const rowMcp = (v: Record<string, unknown>) => ({
  id: v.id,
  short_id: v.short_id,
  summary: v.summary,
  scope: v.scope,
  category: v.category,
  tags: v.tags,
});

const WRITE = { source: "user-said", category: "decision" };

describe("the same records on both lanes", () => {
  it("shows a memory stored through MCP identically through GetMemory, and the reverse", async () => {
    const viaMcp = await ok("store_memory", {
      ...WRITE,
      content: "Deploys go through the blue/green pipeline.",
      scope: "project:parity",
      tags: ["deploy", "ci"],
      repo: "github.com/acme/api",
      workspace: "main",
      worktree: "/src/api",
      base_dir: "/src",
      summary: "blue/green deploys",
    });
    const viaRpc = await rpc.storeMemory({
      ...WRITE,
      content: "Feature flags live in LaunchDarkly.",
      scope: "project:parity",
      tags: ["flags"],
    });
    for (const id of [viaMcp.id as string, viaRpc.id, viaRpc.shortId]) {
      const m = await ok("get_memory", { id });
      const g = await rpc.getMemory({ id });
      expect(fromMcp(m), id).toEqual(fromPb(g.memory));
    }
    expect(viaMcp.short_id).toBe((await rpc.getMemory({ id: viaMcp.id as string })).memory?.shortId);
  });

  it("finds the same hits in the same order through search_memory and SearchMemories", async () => {
    for (const c of ["Postgres is the system of record.", "Redis only caches sessions.", "Postgres backups run nightly."]) {
      await rpc.storeMemory({ ...WRITE, content: c, scope: "project:search-parity" });
    }
    for (const full of [false, true]) {
      const m = await ok("search_memory", { query: "postgres backups", scope: "project:search-parity", k: 3, full });
      const g = await rpc.searchMemories({ query: "postgres backups", scope: "project:search-parity", k: 3n, full });
      const mm = m.memories as Record<string, unknown>[];
      expect(mm.length).toBeGreaterThan(0);
      expect(mm.map(rowMcp)).toEqual(g.memories.map(rowPb));
      if (full) expect(mm.map(fromMcp)).toEqual(g.memories.map(fromPb));
    }
    const wide = await ok("search_memory", { query: "postgres", cross_spine: true, k: 5 });
    const wideRpc = await rpc.searchMemories({ query: "postgres", crossSpine: true, k: 5n });
    expect((wide.memories as Record<string, unknown>[]).map(rowMcp)).toEqual(wideRpc.memories.map(rowPb));
    expect(wide.searched_scopes).toEqual(wideRpc.searchedScopes);
    expect(wide.scopes_truncated).toBe(wideRpc.scopesTruncated);
  });

  it("pages list_memory and cursor-mode ListMemories identically, with the same cursor text", async () => {
    for (let i = 0; i < 5; i++) await ok("store_memory", { ...WRITE, content: `list parity entry ${i}`, scope: "project:list-parity" });
    let cursor = "";
    let token = "";
    const seen: unknown[] = [];
    for (let page = 0; page < 3; page++) {
      const m = await ok("list_memory", { scope: "project:list-parity", limit: 2, ...(cursor ? { cursor } : {}) });
      const g = await rpc.listMemories({ scope: "project:list-parity", limit: 2n, cursorMode: true, pageToken: token });
      expect((m.memories as Record<string, unknown>[]).map(rowMcp)).toEqual(g.memories.map(rowPb));
      expect(m.next_cursor).toBe(g.nextPageToken);
      seen.push(...(m.memories as Record<string, unknown>[]).map((r) => r.id));
      cursor = m.next_cursor as string;
      token = g.nextPageToken;
    }
    expect(new Set(seen).size).toBe(5);
    expect(cursor).toBe("");
  });

  it("applies an update from either lane so that the other lane sees it", async () => {
    const a = await ok("store_memory", { ...WRITE, content: "Old wording.", scope: "project:update-parity" });
    const id = a.id as string;
    const u = await ok("update_memory", { id, content: "New wording.", tags: ["edited"], summary: "new" });
    const r = await rpc.getMemory({ id });
    expect(r.memory).toMatchObject({ content: "New wording.", tags: ["edited"], summary: "new" });
    expect(u).toEqual({ id, short_id: r.memory?.shortId });

    const ru = await rpc.updateMemory({ id, content: "Newer wording.", summary: "newer", updateMask: { paths: ["content", "summary"] } });
    expect({ id: ru.id, short_id: ru.shortId }).toEqual(u);
    expect(fromMcp(await ok("get_memory", { id }))).toEqual(fromPb((await rpc.getMemory({ id })).memory));
    expect((await ok("get_memory", { id })).content).toBe("Newer wording.");
  });

  it("changes visibility from either lane so that the other lane sees it", async () => {
    const a = await ok("store_memory", { ...WRITE, content: "Visibility probe.", scope: "project:vis-parity" });
    const id = a.id as string;
    expect(await ok("set_visibility", { id, shared: true })).toEqual({ id, short_id: a.short_id });
    expect((await rpc.getMemory({ id })).memory?.visibility).toBe("shared");
    const r = await rpc.setVisibility({ id, visibility: Visibility.PRIVATE });
    expect({ id: r.id, short_id: r.shortId }).toEqual({ id, short_id: a.short_id });
    expect((await ok("get_memory", { id })).visibility).toBe("");
  });

  it("deletes from either lane so that both lanes answer the same not-found sentinel", async () => {
    const a = await ok("store_memory", { ...WRITE, content: "Delete me via MCP.", scope: "project:del-parity" });
    const b = await rpc.storeMemory({ ...WRITE, content: "Delete me via Connect.", scope: "project:del-parity" });
    expect(await ok("delete_memory", { id: a.short_id })).toEqual({});
    await rpc.deleteMemory({ id: b.shortId });
    for (const id of [a.id as string, a.short_id as string, b.id, b.shortId]) {
      const viaRpc = await rpcRejection(() => rpc.getMemory({ id }));
      expect(viaRpc).toEqual({ message: `not found: ${id}`, code: Code.NotFound });
      expect(await mcpRejection("get_memory", { id })).toBe(viaRpc.message);
    }
  });

  it("lists scheduled memories identically through list_scheduled and ListScheduled", async () => {
    const later = new Date(Date.now() + 7200_000).toISOString();
    for (let i = 0; i < 3; i++) {
      await ok("schedule_memory", { ...WRITE, content: `scheduled parity ${i}`, scope: "project:sched-parity", not_before: later });
    }
    await rpc.scheduleMemory({ ...WRITE, content: "scheduled via connect", scope: "project:sched-parity", notBefore: timestampFromDate(new Date(later)) });
    let cursor = "";
    let token = "";
    for (let page = 0; page < 2; page++) {
      const m = await ok("list_scheduled", { scope: "project:sched-parity", limit: 3, ...(cursor ? { cursor } : {}) });
      const g = await rpc.listScheduled({ scope: "project:sched-parity", limit: 3n, pageToken: token });
      expect((m.memories as Record<string, unknown>[]).map(fromMcp)).toEqual(g.memories.map(fromPb));
      expect(m.next_cursor).toBe(g.nextPageToken);
      cursor = m.next_cursor as string;
      token = g.nextPageToken;
    }
  });

  it("stores and recalls discoveries identically on both lanes", async () => {
    const cite = { kind: "file", ref: "src/app.ts", locator: "10-20", pin: "", excerpt: "" };
    const a = await ok("store_discovery", { content: "openEngram wires the store and the embedder.", kind: "fact", scope: "discovery:repo:parity", citations: [cite] });
    const b = await rpc.storeDiscovery({ content: "serve mounts Connect and MCP on one listener.", kind: "map", scope: "discovery:repo:parity", citations: [cite] });
    const m = await ok("search_discovery", { query: "listener store embedder", scope: "discovery:repo:parity", k: 5 });
    const g = await rpc.searchDiscoveries({ query: "listener store embedder", scope: "discovery:repo:parity", k: 5n });
    const mm = m.discoveries as Record<string, unknown>[];
    expect(mm.map((d) => d.id).sort()).toEqual([a.id, b.id].sort());
    expect(mm.map(fromMcp)).toEqual(g.discoveries.map(fromPb));
    expect(mm.map((d) => d.citations)).toEqual(g.discoveries.map((d) => d.citations.map((c) => ({ kind: c.kind, ref: c.ref, locator: c.locator, pin: c.pin, excerpt: c.excerpt }))));
  });

  it("validates and commits a supersede identically on both lanes", async () => {
    const t1 = await ok("store_memory", { ...WRITE, content: "Target one.", scope: "project:sup-parity" });
    const t2 = await rpc.storeMemory({ ...WRITE, content: "Target two.", scope: "project:sup-parity" });
    const req = { ...WRITE, content: "The merged truth.", scope: "project:sup-parity" };
    const dryMcp = await ok("supersede_memory", { ...req, supersedes: [t1.short_id, t2.shortId, t1.id], validate_only: true });
    const dryRpc = await rpc.supersedeMemory({ ...req, supersedes: [t1.short_id as string, t2.shortId, t1.id as string], validateOnly: true });
    expect(dryMcp.supersedes).toEqual(dryRpc.supersedes);
    expect((dryMcp.targets as Record<string, unknown>[]).map(rowMcp)).toEqual(dryRpc.targets.map(rowPb));
    const done = await rpc.supersedeMemory({ ...req, supersedes: [t1.id as string, t2.id] });
    for (const id of [t1.id as string, t2.id]) expect((await ok("get_memory", { id })).superseded_by).toBe(done.id);
    const again = await rpcRejection(() => rpc.supersedeMemory({ ...req, supersedes: [t2.shortId] }));
    expect(await mcpRejection("supersede_memory", { ...req, supersedes: [t2.shortId] })).toBe(again.message);
    expect(again.message).toBe(`target is already superseded: ${t2.shortId}`);
  });

  it("lists the same rule set through list_rules and ListRules", async () => {
    for (const c of ["Rule one.", "Rule two."]) await ok("store_rule", { content: c, scope: "rule:project:parity", summary: c });
    const m = await ok("list_rules", { scopes: ["rule:project:parity"] });
    const g = await rpc.listRules({ scopes: ["rule:project:parity"] });
    const ruleRow = (v: { id: unknown; summary: unknown; scope: unknown; tags: unknown }) => ({ id: v.id, summary: v.summary, scope: v.scope, tags: v.tags });
    expect((m.rules as Record<string, unknown>[]).map((r) => ruleRow(r as never))).toEqual(g.rules.map(ruleRow));
    const full = await ok("list_rules", { full: true });
    const fullRpc = await rpc.listRules({ full: true });
    expect((full.rules as Record<string, unknown>[]).map(fromMcp)).toEqual(fullRpc.rules.map(fromPb));
    expect(full.searched_scopes).toEqual(fullRpc.searchedScopes);
  });

  it("archives and restores with the same outcomes on both lanes", async () => {
    const a = await ok("store_memory", { ...WRITE, content: "Archive parity.", scope: "project:arch-parity" });
    const name: Record<number, string> = {
      [ArchiveOutcome.ARCHIVED]: "archived",
      [ArchiveOutcome.ALREADY_ARCHIVED]: "already_archived",
      [ArchiveOutcome.RESTORED]: "restored",
      [ArchiveOutcome.NOT_ARCHIVED]: "not_archived",
      [ArchiveOutcome.NOT_FOUND]: "not_found",
    };
    const rows = (r: { requested: string; id: string; outcome: ArchiveOutcome }[]) =>
      r.map((x) => (x.id ? { requested: x.requested, id: x.id, outcome: name[x.outcome] } : { requested: x.requested, outcome: name[x.outcome] }));
    const ids = [a.short_id as string, "NoSuchShrt"];
    expect((await ok("archive_memory", { ids })).results).toEqual([
      { requested: a.short_id, id: a.id, outcome: "archived" },
      { requested: "NoSuchShrt", outcome: "not_found" },
    ]);
    expect(rows((await rpc.archiveMemory({ ids })).results)).toEqual([
      { requested: a.short_id, id: a.id, outcome: "already_archived" },
      { requested: "NoSuchShrt", outcome: "not_found" },
    ]);
    const restored = await ok("restore_memory", { ids });
    const again = rows((await rpc.restoreMemory({ ids })).results);
    expect((restored.results as unknown[])[0]).toEqual({ requested: a.short_id, id: a.id, outcome: "restored" });
    expect(again[0]).toEqual({ requested: a.short_id, id: a.id, outcome: "not_archived" });
  });

  it("shows the same neighbourhood and tag counts on both lanes", async () => {
    const a = await ok("store_memory", { ...WRITE, content: "vector index tuning notes", scope: "project:rel-parity", tags: ["hnsw", "perf"] });
    await ok("store_memory", { ...WRITE, content: "vector index recall notes", scope: "project:rel-parity", tags: ["hnsw"] });
    await ok("store_memory", { ...WRITE, content: "unrelated cooking notes", scope: "project:rel-parity", tags: ["food"] });
    const m = await ok("related_memories", { id: a.id, k: 4 });
    const g = await rpc.relatedMemories({ id: a.id as string, k: 4n });
    expect(rowMcp(m.anchor as Record<string, unknown>)).toEqual(rowPb(g.anchor!));
    const typeName: Record<number, string> = {
      [EdgeType.SUPERSESSION]: "supersession",
      [EdgeType.CITATION]: "citation",
      [EdgeType.TAG]: "tag",
      [EdgeType.VECTOR]: "vector",
    };
    const related = m.related as { memory: Record<string, unknown>; edges: { type: string }[] }[];
    expect(related.length).toBeGreaterThan(0);
    expect(related.some((r) => r.edges.some((e) => e.type === "tag"))).toBe(true);
    expect(related.map((r) => ({ row: rowMcp(r.memory), edges: r.edges.map((e) => e.type) }))).toEqual(
      g.related.map((r) => ({ row: rowPb(r.memory!), edges: r.edges.map((e) => typeName[e.type]) })),
    );
    expect(m.truncated).toBe(g.truncated);
    const tm = await ok("list_tags", { scope: "project:rel-parity" });
    const tg = await rpc.listTags({ scope: "project:rel-parity" });
    expect(tm).toEqual({ tags: tg.tags.map((t) => ({ tag: t.tag, count: Number(t.count) })), more: tg.more });
  });
});


describe("the same rejections on both lanes", () => {
  const cases = REJECTIONS.map(([label, tool, args, viaRpc]) => [label, tool, args, viaRpc] as const);

  /** Tools with no Connect RPC: none any more; kept so a new MCP-only tool is a deliberate choice. */
  const MCP_ONLY: string[] = [];

  it.each(cases)("%s: the MCP text is byte-identical to the Connect message", async (_label, tool, args, viaRpc) => {
    const r = await rpcRejection(() => viaRpc(rpc));
    expect(r.code).not.toBe(Code.Internal);
    expect(await mcpRejection(tool, args)).toBe(r.message);
  });

  it("covers every implemented operation that has a Connect RPC with at least one invalid case", async () => {
    const { TOOL_NAMES } = await import("../src/mcp/index.js");
    expect(new Set(cases.map((c) => c[1]))).toEqual(new Set(TOOL_NAMES.filter((t) => !MCP_ONLY.includes(t))));
  });

  it("names the visibility field as each lane names it, in otherwise identical envelopes", async () => {
    const a = await ok("store_memory", { ...WRITE, content: "Lane field names.", scope: "project:vis-names" });
    const r = await rpcRejection(() => rpc.setVisibility({ id: a.id as string }));
    expect(r.message).toBe("field=visibility hint=required: visibility is required");
    expect(await mcpRejection("set_visibility", { id: a.id })).toBe("field=shared hint=required: shared is required");
  });
});

/**
 * The CLI as the third lane. Every request above that can be typed is run
 * through the built `engram` against the same server: its stderr is the
 * Connect message as the server sent it (an envelope or a sentinel, the
 * whole line) and its exit status is the one the Connect code maps to. The
 * acceptance rows hold each client flag to taking what the server takes,
 * so a refusal only the CLI makes fails here, unless it is a declared
 * CLI-tier rule; exactly one such rule names request fields.
 */
describe("the same answers through the CLI", () => {
  const CLIENT_FLAGS = ["--server", "--token-file", "--output", "--timeout", "--insecure"];
  let made: Made;

  const cli = (args: readonly string[]) => runEngram([...args, "--server", srv.url, "--output", "json"]);

  async function expectCliLine(args: readonly string[], message: string, code: Code): Promise<void> {
    const run = await cli(args);
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit: exitForConnectCode(code), stderr: `${message}\n`, stdout: "" });
  }

  beforeAll(async () => {
    const mem = { scope: "project:accept", source: "user-said", category: "decision" };
    const a = await rpc.storeMemory({ ...mem, content: "the accepted anchor", tags: ["a"] });
    const d = await rpc.storeDiscovery({ content: "d0", kind: "fact", scope: "discovery:accept", citations: [{ kind: "url", ref: "https://x" }] });
    const x = await rpc.storeMemory({ ...mem, content: "doomed via connect" });
    const y = await rpc.storeMemory({ ...mem, content: "doomed via the cli" });
    await rpc.scheduleMemory({ ...mem, content: "due later", notBefore: timestampFromDate(new Date("2997-01-01T00:00:00Z")) });
    const page = await rpc.listMemories({ crossSpine: true, cursorMode: true, limit: 1n });
    const scheduled = await rpc.listScheduled({ scope: "project:accept", limit: 1n });
    made = { id: a.id, shortId: a.shortId, discoveryId: d.id, freshIds: [randomUUID(), randomUUID()], doomed: [x.id, y.shortId], pageToken: page.nextPageToken, scheduledToken: scheduled.nextPageToken };
    expect([made.pageToken, made.scheduledToken]).not.toContain("");
  });

  it.each(REJECTIONS.filter((c) => c[4] !== null))("%s: the CLI prints the Connect message and exits by its code", async (_label, _tool, _args, viaRpc, cliArgs) => {
    const r = await rpcRejection(() => viaRpc(rpc));
    await expectCliLine(cliArgs!, r.message, r.code);
  });

  it.each(CONNECT_REJECTIONS)("%s: the CLI prints the Connect message and exits by its code", async (_label, viaRpc, cliArgs) => {
    const r = await rpcRejection(() => viaRpc(rpc));
    expect(r.code).not.toBe(Code.Internal);
    await expectCliLine(cliArgs, r.message, r.code);
  });

  it.each(JSON_INPUTS)("%s: a --citation reads exactly as the same JSON on MCP, exit 2", async (_label, tool, args, cliArgs) => {
    await expectCliLine(cliArgs, await mcpRejection(tool, args), Code.InvalidArgument);
  });

  it.each(ACCEPTANCES)("%s: the CLI takes what Connect takes", async (_label, viaRpc, cliArgs) => {
    await viaRpc(rpc, made);
    const run = await cli(cliArgs(made));
    expect({ exit: run.code, stderr: run.stderr }).toEqual({ exit: EXIT.ok, stderr: "" });
    expect(JSON.parse(run.stdout)).toBeTypeOf("object");
  });

  it.each(CLI_TIER_EXCEPTIONS)("%s: Connect and MCP take it, the CLI refuses it by a declared CLI-tier rule", async (_label, rule, tool, args, viaRpc, cliArgs) => {
    await viaRpc(rpc);
    await ok(tool, args);
    expect(RULES[rule as RuleId].tier).toBe("cli");
    const run = await cli(cliArgs);
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit: EXIT.usage, stderr: `${ruleError(rule as RuleId).message}\n`, stdout: "" });
  });

  it("declares exactly one CLI-only refusal of a request: the CLI-tier rule whose fields are request fields", () => {
    const requestFields = new Set(EngramService.methods.flatMap((m) => m.input.fields.map((f) => f.name)));
    const onRequests = CLI_TIER_RULES.filter((id) => RULES[id].fields.every((f) => requestFields.has(f)));
    expect(onRequests).toEqual(["scope-cross-spine-mutually-exclusive"]);
    expect([...new Set(CLI_TIER_EXCEPTIONS.map((e) => e[1]))]).toEqual(onRequests);
  });

  it("takes an acceptance row for every client verb and every flag that stands for a request field", async () => {
    const catalog = JSON.parse((await runEngram([])).stdout) as { commands: { name: string; flags: { name: string }[] }[] };
    const accepted = ACCEPTANCES.map((row) => row[2](made));
    const missing: string[] = [];
    for (const verb of catalog.commands.filter((c) => c.flags.some((f) => f.name === "--server"))) {
      const runs = accepted.filter((a) => a[0] === verb.name);
      if (runs.length === 0) missing.push(verb.name);
      for (const f of verb.flags) if (!CLIENT_FLAGS.includes(f.name) && !runs.some((a) => a.includes(f.name))) missing.push(`${verb.name} ${f.name}`);
    }
    expect(missing).toEqual([]);
  });
});
