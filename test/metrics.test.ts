import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_QUEUE_OUTCOMES } from "../src/core/index.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

const TOKEN = "metrics-test-token-7f3a";
const SECRET_CONTENT = "the billing database password lives in vault path kv/ops";

type LogLine = Record<string, unknown>;

describe("GET /metrics and the access log", () => {
  let server: TestServer;
  let mcp: McpClient;

  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: `alice=${TOKEN}`, ENGRAM_RESPONSE_BUDGET_BYTES: "2048" } });
    mcp = new McpClient({ name: "metrics-test", version: "0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));

    const connect = server.client(TOKEN);
    await connect.storeMemory({ content: SECRET_CONTENT, scope: "repo:demo", source: "user-said", category: "decision" });
    await connect.storeMemory({ content: "Deploys go out on Tuesdays", scope: "repo:demo", source: "user-said", category: "decision" });
    const rejected = await connect.storeMemory({ content: "", scope: "repo:demo", source: "user-said", category: "decision" }).catch((e: unknown) => e);
    expect(ConnectError.from(rejected).code).toBe(Code.InvalidArgument);
    const unauthenticated = await server.client("wrong-token").listScopes({}).catch((e: unknown) => e);
    expect(ConnectError.from(unauthenticated).code).toBe(Code.Unauthenticated);
    // A content type no protocol uses: the library answers 415 without reading the body.
    const wrongType = await fetch(`${server.url}/engram.v1.EngramService/ListScopes`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" },
      body: "{}",
    });
    expect(wrongType.status).toBe(415);

    const ok = await mcp.callTool({ name: "store_memory", arguments: { content: "MCP clients speak JSON-RPC", scope: "repo:demo", source: "user-said", category: "convention" } });
    expect(ok.isError).toBeFalsy();
    const bad = await mcp.callTool({ name: "store_memory", arguments: { content: "", scope: "repo:demo", source: "user-said", category: "convention" } });
    expect(bad.isError).toBe(true);

    // Fill a scope past the 2 KiB budget so a full listing is response_too_large.
    for (let i = 0; i < 4; i++) {
      await connect.storeMemory({ content: `budget filler ${i} `.repeat(40), scope: "repo:big", source: "user-said", category: "convention" });
    }
    const tooLarge = await connect.listMemories({ scope: "repo:big", full: true, limit: BigInt(50) }).catch((e: unknown) => e);
    expect(ConnectError.from(tooLarge).code).toBe(Code.ResourceExhausted);
  });

  afterAll(async () => {
    await mcp?.close();
    await server?.close();
  });

  const scrape = async (): Promise<string> => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it("counts Connect and MCP requests by procedure or tool and code, rejections under their Connect code", async () => {
    const lines = (await scrape()).split("\n");
    expect(lines).toContain('engram_requests_total{lane="connect",procedure="StoreMemory",code="ok"} 6');
    expect(lines).toContain('engram_requests_total{lane="connect",procedure="StoreMemory",code="invalid_argument"} 1');
    expect(lines).toContain('engram_requests_total{lane="connect",procedure="ListScopes",code="unauthenticated"} 1');
    expect(lines).toContain('engram_requests_total{lane="connect",procedure="ListScopes",code="unimplemented"} 1');
    expect(lines).toContain('engram_requests_total{lane="connect",procedure="ListMemories",code="resource_exhausted"} 1');
    expect(lines).toContain('engram_requests_total{lane="mcp",procedure="store_memory",code="ok"} 1');
    expect(lines).toContain('engram_requests_total{lane="mcp",procedure="store_memory",code="invalid_argument"} 1');
  });

  it("exports latency histograms, the embed and summary queues, the record count and each part's readiness", async () => {
    const text = await scrape();
    const lines = text.split("\n");
    expect(lines).toContain('engram_request_duration_seconds_count{lane="connect",procedure="StoreMemory"} 7');
    expect(lines).toContain('engram_request_duration_seconds_count{lane="mcp",procedure="store_memory"} 2');
    expect(text).toMatch(/^engram_request_duration_seconds_bucket\{le="\+Inf",lane="connect",procedure="StoreMemory"\} 7$/m);
    expect(lines).toContain("engram_store_records 7");
    // The fake embedder has no worker queue: depth 0, but the series is always there for dashboards.
    expect(lines).toContain("engram_embed_queue_depth 0");
    // No summary queue runs here; its series are there all the same, at 0.
    expect(lines).toContain("engram_summary_queue_depth 0");
    for (const outcome of SUMMARY_QUEUE_OUTCOMES) expect(lines).toContain(`engram_summary_queue_total{outcome="${outcome}"} 0`);
    for (const part of ["store", "index", "embedder"]) expect(text).toMatch(new RegExp(`^engram_ready\\{part="${part}"\\} [01]$`, "m"));
  });

  it("sits behind the bearer check like the service, while /healthz stays open", async () => {
    const anonymous = await fetch(`${server.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="engram"');
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer nope" } })).status).toBe(401);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("writes one access-log line per request with lane, procedure, code, duration and owner, never content or tokens", () => {
    const access = server.log.lines.map((l) => JSON.parse(l) as LogLine).filter((l) => l.msg === "request");
    // 7 StoreMemory + 2 ListScopes + 1 ListMemories on Connect, 2 tool calls on MCP.
    expect(access).toHaveLength(12);
    const rejected = access.find((l) => l.lane === "connect" && l.code === "invalid_argument");
    expect(rejected).toMatchObject({ level: "info", lane: "connect", procedure: "StoreMemory", owner: "alice", hint: "required" });
    expect(typeof rejected?.duration_ms).toBe("number");
    expect(access.find((l) => l.lane === "mcp" && l.code === "invalid_argument")).toMatchObject({ level: "info", procedure: "store_memory", owner: "alice", hint: "required" });
    expect(access.find((l) => l.code === "unauthenticated")).toMatchObject({ level: "info", procedure: "ListScopes", owner: null });
    expect(access.find((l) => l.code === "unimplemented")).toMatchObject({ level: "info", procedure: "ListScopes", owner: "alice" });
    expect(server.log.text()).not.toContain(SECRET_CONTENT);
    expect(server.log.text()).not.toContain("vault");
    expect(server.log.text()).not.toContain(TOKEN);
  });

  it("logs a response_too_large at info as the caller's request, with no error line", () => {
    const lines = server.log.lines.map((l) => JSON.parse(l) as LogLine);
    expect(lines.find((l) => l.procedure === "ListMemories")).toMatchObject({ level: "info", msg: "request", code: "resource_exhausted", hint: "response_too_large" });
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
  });
});
