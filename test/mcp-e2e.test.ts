/**
 * End to end with the MCP SDK's own client: over Streamable HTTP against a
 * running server (`/mcp` on the shared listener), and over stdio against a
 * child process running serveStdio.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTRACT_CAPABILITY, CONTRACT_VERSION, TOOL_NAMES } from "../src/mcp/index.js";
import { childStoreEnv } from "./helpers/test-store.js";
import { memory, runningEngram, texts, type RunningEngram, type ToolResult } from "./fixtures/mcp-harness.js";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const engramBin = join(repoRoot, "bin", "engram.js");
const TAGS_129 = Array.from({ length: 129 }, (_, i) => `tag-${i}`);
const TOO_MANY_TAGS = "field=tags hint=too_many: too many tags: 129 (max 128)";

/** The checks every transport must pass, against one connected client. */
function sharedBehaviour(getClient: () => Client) {
  const call = (name: string, args: Record<string, unknown>) => getClient().callTool({ name, arguments: args }) as Promise<ToolResult>;

  it("lists exactly the table's tools", async () => {
    const { tools } = await getClient().listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
  });

  it("advertises the contract version at initialize", () => {
    const experimental = getClient().getServerCapabilities()?.experimental as Record<string, unknown>;
    expect(experimental[CONTRACT_CAPABILITY]).toEqual({ version: CONTRACT_VERSION });
    expect(getClient().getServerVersion()?.name).toBe("engram");
  });

  it("does not promise tools/list_changed notifications: the tool set never changes while it runs", () => {
    expect(getClient().getServerCapabilities()?.tools).toEqual({ listChanged: false });
  });

  it("answers a store_memory with 129 tags with exactly the envelope", async () => {
    const r = await call("store_memory", memory({ tags: TAGS_129 }));
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: "text", text: TOO_MANY_TAGS }]);
    expect(r.structuredContent).toBeUndefined();
  });

  it("get_memory answers each new version of a record, its JSON mirror and structuredContent alike", async () => {
    const stored = await call("store_memory", memory({ content: "the first words", scope: "project:e2e" }));
    const { id } = stored.structuredContent as { id: string };
    for (let i = 0; i < 2; i++) {
      const r = await call("get_memory", { id });
      expect(texts(r)[0]).toBe("the first words");
      expect(JSON.parse(texts(r)[1]!)).toEqual(r.structuredContent);
    }
    await call("update_memory", { id, content: "the second words" });
    const r = await call("get_memory", { id });
    expect(r.isError).toBeFalsy();
    expect(texts(r)[0]).toBe("the second words");
    expect(r.structuredContent).toMatchObject({ id, content: "the second words" });
    expect(JSON.parse(texts(r)[1]!)).toEqual(r.structuredContent);
  });

  it("finds a stored memory by searching for it", async () => {
    const stored = await call("store_memory", memory({ content: "Rotate the signing keys every ninety days.", scope: "project:e2e" }));
    expect(stored.isError).toBeFalsy();
    const { id } = stored.structuredContent as { id: string };
    const r = await call("search_memory", { query: "signing keys rotation", scope: "project:e2e" });
    expect(r.isError).toBeFalsy();
    const hits = (r.structuredContent as { memories: { id: string; summary: string }[] }).memories;
    expect(hits[0]).toMatchObject({ id, summary: "Rotate the signing keys every ninety days." });
    expect(texts(r)[0]).toBe(`${hits.length} hits`);
  });
}

describe("over Streamable HTTP", () => {
  let srv: RunningEngram;
  let client: Client;
  beforeAll(async () => {
    srv = await runningEngram();
    client = await srv.mcp();
  });
  afterAll(async () => srv.close());

  sharedBehaviour(() => client);

  it("answers a GET on /mcp with 405, since there is no session stream to open", async () => {
    const res = await fetch(`${srv.url}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    await res.body?.cancel();
  });

  it("serves a tools/call over cleartext HTTP/2 on the same port", async () => {
    const session = http2.connect(srv.url);
    try {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "store_memory", arguments: memory({ tags: TAGS_129 }) },
      });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = session.request({
          ":method": "POST",
          ":path": "/mcp",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        });
        let status = 0;
        let text = "";
        req.on("response", (h) => (status = Number(h[":status"])));
        req.setEncoding("utf8");
        req.on("data", (d: string) => (text += d));
        req.on("end", () => resolve({ status, text }));
        req.on("error", reject);
        req.end(body);
      });
      expect(answer.status).toBe(200);
      const msg = JSON.parse(answer.text) as { id: number; result: { isError: boolean; content: { text: string }[] } };
      expect(msg.id).toBe(7);
      expect(msg.result.isError).toBe(true);
      expect(msg.result.content).toEqual([{ type: "text", text: TOO_MANY_TAGS }]);
    } finally {
      session.close();
    }
  });
});

describe("over Streamable HTTP with bearer tokens", () => {
  let srv: RunningEngram;
  beforeAll(async () => {
    srv = await runningEngram({ ENGRAM_AUTH_TOKENS: "alice=tok-alice-1,bob=tok-bob-2" });
  });
  afterAll(async () => srv.close());

  it("refuses a client without a valid bearer token with HTTP 401", async () => {
    await expect(srv.mcp()).rejects.toMatchObject({ code: 401 });
    await expect(srv.mcp("tok-wrong")).rejects.toMatchObject({ code: 401 });
    expect(srv.log.text()).not.toContain("tok-wrong");
  });

  it("acts as the token's owner: another owner's private memory is not found", async () => {
    const alice = await srv.mcp("tok-alice-1");
    const bob = await srv.mcp("tok-bob-2");
    const stored = (await alice.callTool({ name: "store_memory", arguments: memory() })) as ToolResult;
    const { id } = stored.structuredContent as { id: string };
    const mine = (await alice.callTool({ name: "get_memory", arguments: { id } })) as ToolResult;
    expect(mine.structuredContent).toMatchObject({ id, owner: "alice", actor: "alice" });
    const theirs = (await bob.callTool({ name: "get_memory", arguments: { id } })) as ToolResult;
    expect(texts(theirs)).toEqual([`not found: ${id}`]);
    // Once shared, bob can read it but still not change it.
    await alice.callTool({ name: "set_visibility", arguments: { id, shared: true } });
    expect(((await bob.callTool({ name: "get_memory", arguments: { id } })) as ToolResult).isError).toBeFalsy();
    const del = (await bob.callTool({ name: "delete_memory", arguments: { id } })) as ToolResult;
    expect(texts(del)).toEqual([`not found: ${id}`]);
  });
});

describe("over stdio", () => {
  let dataDir: string;
  let storeEnv: Record<string, string>;
  let client: Client;
  let transport: StdioClientTransport;
  const clientErrors: Error[] = [];
  let stderr = "";

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "engram-mcp-stdio-"));
    storeEnv = await childStoreEnv(dataDir);
    transport = new StdioClientTransport({
      command: process.execPath,
      // The real `engram mcp` command, with the local model, as an agent runtime starts it.
      args: [engramBin, "mcp"],
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...storeEnv },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    client = new Client({ name: "engram-e2e", version: "0.0.0" });
    client.onerror = (e) => clientErrors.push(e);
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  sharedBehaviour(() => client);

  /** `engram mcp` as a child whose pipes the test writes and reads itself, frame by frame. */
  const rawMcp = () =>
    spawn(process.execPath, [engramBin, "mcp"], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...storeEnv },
      stdio: ["pipe", "pipe", "pipe"],
    });

  it("writes nothing but protocol frames on stdout", () => {
    // A stray line on stdout would fail to parse as JSON-RPC and surface here.
    expect(clientErrors).toEqual([]);
  });

  it("exits when its stdin closes", async () => {
    const child = rawMcp();
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      }) + "\n",
    );
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (out.includes("\n")) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const lines = out.split("\n").filter((l) => l !== "");
    // The startup log line went to stderr; stdout holds the one answer.
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "engram" } } });
  });

  it("answers a line that is not one JSON-RPC message with -32700, as HTTP does, and goes on serving", async () => {
    const child = rawMcp();
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const ping = { jsonrpc: "2.0", id: 7, method: "ping" };
    child.stdin.write(["zzqx-secret-993", JSON.stringify([ping, ping]), JSON.stringify({ jsonrpc: "2.0", id: 3, method: 5 }), JSON.stringify(ping)].join("\n") + "\n");
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (out.split("\n").filter(Boolean).length >= 4) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
    expect(out.split("\n").filter(Boolean).map((l) => JSON.parse(l) as unknown)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: Invalid JSON" } },
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: Invalid JSON-RPC message" } },
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: Invalid JSON-RPC message" } },
      { jsonrpc: "2.0", id: 7, result: {} },
    ]);
    expect(err).toContain("mcp stdio line is not a JSON-RPC message");
    expect(err).not.toContain("zzqx");
  });

  it("logs on stderr, and says loudly that a session with no ENGRAM_MCP_OWNER is anonymous", () => {
    expect(stderr).toContain("mcp serving on stdio");
    expect(stderr).toContain("mcp stdio session is ANONYMOUS");
  });
});
