/**
 * CountMemories / count_memories: how many records a list with the same
 * filters would page through, on a real server, over Connect and over MCP's
 * Streamable HTTP lane, on the store this run tests.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

const rec = (scope: string, content: string, extra: Record<string, unknown> = {}) => ({
  content,
  scope,
  source: "user-said",
  category: "decision",
  ...extra,
});

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };

describe("counting what a list would page through", () => {
  let server: TestServer;
  let mcp: Client;
  const call = (args: Record<string, unknown>) => mcp.callTool({ name: "count_memories", arguments: args }) as Promise<ToolResult>;

  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: "alice=tok-a,bob=tok-b" } });
    const alice = server.client("tok-a");
    for (let i = 0; i < 5; i++) await alice.storeMemory(rec("repo:count", `decision number ${i}`, { tags: i % 2 === 0 ? ["even"] : [] }));
    await alice.storeMemory(rec("repo:count", "a gotcha", { category: "gotcha" }));
    const gone = await alice.storeMemory(rec("repo:count", "archived, not counted"));
    await alice.archiveMemory({ ids: [gone.id] });
    await alice.storeMemory(rec("repo:other", "elsewhere"));
    await server.client("tok-b").storeMemory(rec("repo:count", "bob's private record"));
    mcp = new Client({ name: "count-memories-test", version: "0.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: "Bearer tok-a" } } }));
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
  });

  it("counts exactly the records the same list returns, over Connect", async () => {
    const alice = server.client("tok-a");
    for (const filters of [{}, { tags: ["even"] }, { categories: ["gotcha"] }, { includeArchived: true }]) {
      const listed = await alice.listMemories({ scope: "repo:count", ...filters });
      const counted = await alice.countMemories({ scope: "repo:count", ...filters });
      expect(counted.count, JSON.stringify(filters)).toBe(listed.total);
    }
    expect((await alice.countMemories({ scope: "repo:count" })).count).toBe(6n);
    expect((await alice.countMemories({ scope: "repo:count", includeArchived: true })).count).toBe(7n);
  });

  it("counts across every readable scope with cross_spine and names the scopes counted", async () => {
    const r = await server.client("tok-a").countMemories({ crossSpine: true });
    expect(r.count).toBe(7n);
    expect([...r.searchedScopes].sort()).toEqual(["repo:count", "repo:other"]);
  });

  it("answers the same count on MCP, with the human line and the structured result", async () => {
    const r = await call({ scope: "repo:count", tags: ["even"] });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ count: 3 });
    expect(r.content[0]!.text).toBe("3 memories");
  });

  it("refuses a count without a scope in the same envelope on both lanes", async () => {
    const err = (await server
      .client("tok-a")
      .countMemories({})
      .catch((e: unknown) => e)) as ConnectError;
    expect(err).toBeInstanceOf(ConnectError);
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe("field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true");
    const r = await call({});
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: "text", text: err.rawMessage }]);
  });

  it("refuses a malformed created_after by name, without echoing it", async () => {
    const r = await call({ scope: "repo:count", created_after: "yesterday-ish" });
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/^field=created_after hint=format: /);
    expect(r.content[0]!.text).not.toContain("yesterday-ish");
  });

  it("is a read-only tool", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.find((t) => t.name === "count_memories")?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });
});
