/**
 * Answers that must match the reference: compact rows on Connect and in the
 * CLI's JSON are whole records with only content, citations and kind
 * cleared (reference §1.2), while the MCP lane keeps its recall view; and
 * ListMemories parses the created window second, right after limit.
 */
import { Code, ConnectError, type Client as ConnectClient } from "@connectrpc/connect";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { EngramService, Visibility } from "../src/gen/engram/v1/engram_pb.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { runningEngram, type RunningEngram, type ToolResult } from "./fixtures/mcp-harness.js";
import { runEngram } from "./helpers/run-engram.js";

type Rpc = ConnectClient<typeof EngramService>;

const TOKEN = "tok-ref";
let srv: RunningEngram;
let rpc: Rpc;
let mcp: Client;
let id = "";

beforeAll(async () => {
  srv = await runningEngram({ ENGRAM_AUTH_TOKENS: `alice=${TOKEN}` });
  rpc = srv.connect(TOKEN);
  mcp = await srv.mcp(TOKEN);
  const r = await rpc.storeMemory({
    content: "Releases are cut from main every Tuesday after the freeze.",
    scope: "project:rows",
    source: "agent-inferred",
    category: "convention",
    repo: "github.com/acme/api",
    tags: ["release"],
    citations: [{ kind: "file", ref: "RELEASING.md" }],
  });
  id = r.id;
  await rpc.setVisibility({ id, visibility: Visibility.SHARED });
});
afterAll(async () => srv?.close());

async function rejection(fn: () => Promise<unknown>): Promise<{ message: string; code: string }> {
  try {
    await fn();
  } catch (err) {
    const e = ConnectError.from(err);
    return { message: e.rawMessage, code: Code[e.code] };
  }
  throw new Error("the call succeeded");
}

describe("compact rows keep everything but content, citations and kind", () => {
  it("lists a shared record compactly on Connect with its provenance, owner, visibility and schema version", async () => {
    const { memories } = await rpc.listMemories({ scope: "project:rows" });
    const m = memories[0]!;
    expect(m.id).toBe(id);
    expect(m.content).toBe("");
    expect(m.citations).toEqual([]);
    expect(m.kind).toBe("");
    expect(m.summary).toBe("Releases are cut from main every Tuesday after the freeze.");
    expect({ source: m.source, owner: m.owner, actor: m.actor, visibility: m.visibility, repo: m.repo }).toEqual({
      source: "agent-inferred",
      owner: "alice",
      actor: "alice",
      visibility: "shared",
      repo: "github.com/acme/api",
    });
    expect(m.schemaVersion).toBe(CURRENT_SCHEMA_VERSION);
  });

  it("shows the same on a compact search hit", async () => {
    const { memories } = await rpc.searchMemories({ query: "release tuesday", scope: "project:rows" });
    expect(memories[0]).toMatchObject({ id, content: "", visibility: "shared", owner: "alice", source: "agent-inferred", schemaVersion: CURRENT_SCHEMA_VERSION });
  });

  it("prints the shared visibility and the schema version in engram list --output json", async () => {
    const run = await runEngram(["list", "--scope", "project:rows", "--output", "json", "--server", srv.url], { ENGRAM_TOKEN: TOKEN });
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const row = (JSON.parse(run.stdout) as { memories: Record<string, unknown>[] }).memories[0]!;
    expect(row.visibility).toBe("shared");
    expect(row.source).toBe("agent-inferred");
    expect(row.owner).toBe("alice");
    expect(row.schema_version ?? row.schemaVersion).toBe(CURRENT_SCHEMA_VERSION);
    expect(row.content ?? "").toBe("");
  });

  it("keeps the MCP compact row to the recall view", async () => {
    const r = (await mcp.callTool({ name: "list_memory", arguments: { scope: "project:rows" } })) as ToolResult;
    const row = (r.structuredContent as { memories: Record<string, unknown>[] }).memories[0]!;
    expect(Object.keys(row).sort()).toEqual(["category", "created_at", "id", "scope", "short_id", "summary", "tags"]);
  });
});

describe("ListMemories parses the created window second", () => {
  it("reports a bad window before the paging trio when both are wrong", async () => {
    expect(await rejection(() => rpc.listMemories({ scope: "s", createdAfter: "yesterday", cursorMode: true, offset: 5n }))).toEqual({
      message: "field=created_after hint=format: created_after must be RFC3339",
      code: "InvalidArgument",
    });
  });

  it("reports a bad window before a bad visibility and a missing scope", async () => {
    expect(await rejection(() => rpc.listMemories({ createdBefore: "soon", visibility: "everyone" }))).toEqual({
      message: "field=created_before hint=format: created_before must be RFC3339",
      code: "InvalidArgument",
    });
  });

  it("still reports the limit first", async () => {
    expect(await rejection(() => rpc.listMemories({ scope: "s", limit: 1001n, createdAfter: "yesterday" }))).toEqual({
      message: "field=limit hint=out_of_range: limit exceeds the maximum of 1000",
      code: "InvalidArgument",
    });
  });

  it("reports the paging trio once the window is well-formed", async () => {
    const r = await rejection(() => rpc.listMemories({ scope: "s", createdAfter: "2026-01-01T00:00:00Z", cursorMode: true, offset: 5n }));
    expect(r).toEqual({ message: "field=cursor_mode,offset,page_token hint=mutually_exclusive: cursor_mode, offset, and page_token are mutually exclusive", code: "FailedPrecondition" });
  });
});
