/**
 * tools/call is answered past the SDK Server's result check (see
 * createMcpServer), so the shape that check would hold is held here: every
 * result callTool builds, success or rejection, is a CallToolResult exactly
 * as the SDK's own schema reads it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEngram, type Engram } from "../src/app.js";
import { ANONYMOUS } from "../src/core/index.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { createMcpServer } from "../src/mcp/index.js";
import { openTestStore } from "./helpers/test-store.js";

describe("tools/call results as they leave the server", () => {
  let dir: string;
  let engram: Engram;
  let client: Client;
  let server: ReturnType<typeof createMcpServer>;
  /** Each tools/call result exactly as the server sent it, before the client parses it. */
  const sent = new Map<string | number, unknown>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "engram-mcp-result-"));
    const opened = await openTestStore({ dataDir: dir, dim: 64 });
    engram = await openEngram({ env: opened.env, embedder: new FakeEmbedder(64), store: opened.store });
    server = createMcpServer(engram.core, ANONYMOUS);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: "engram-test", version: "0.0.0" });
    await client.connect(clientSide);
    const deliver = clientSide.onmessage!;
    clientSide.onmessage = (message: JSONRPCMessage, extra) => {
      if ("result" in message && "id" in message) sent.set(message.id, message.result);
      deliver(message, extra);
    };
  });

  afterAll(async () => {
    await client.close();
    await server.close();
    await engram.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Calls a tool and hands back the result the server sent for it. */
  const callRaw = async (name: string, args: Record<string, unknown>) => {
    const before = new Set(sent.keys());
    await client.callTool({ name, arguments: args });
    const id = [...sent.keys()].find((k) => !before.has(k));
    return sent.get(id!) as Record<string, unknown>;
  };

  it("a success, a success with an empty structured result and a rejection each parse as a CallToolResult with nothing dropped or added", async () => {
    const stored = await callRaw("store_memory", { content: "the deploy needs AWS_REGION", scope: "repo:shape", source: "user-said", category: "convention" });
    const id = (stored.structuredContent as { id: string }).id;
    const results = [
      stored,
      await callRaw("get_memory", { id }),
      await callRaw("delete_memory", { id }),
      await callRaw("get_memory", { id }),
    ];
    expect(results.map((r) => r.isError === true)).toEqual([false, false, false, true]);
    for (const r of results) {
      const parsed = CallToolResultSchema.safeParse(r);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual(r);
    }
  });

  it("get_memory sends the structuredContent kept for the stored version itself, not a copy made per call", async () => {
    const stored = await client.callTool({ name: "store_memory", arguments: { content: "read twice", scope: "repo:shape", source: "user-said", category: "convention" } });
    const id = (stored.structuredContent as { id: string }).id;
    const first = await callRaw("get_memory", { id });
    const second = await callRaw("get_memory", { id });
    expect(second.structuredContent).toBe(first.structuredContent);
    expect(Object.isFrozen(first.structuredContent)).toBe(true);
  });
});
