/**
 * tools/call as raw JSON-RPC over the Streamable HTTP route: a call that does
 * not name a tool is a protocol error (-32602, one short sentence, nothing of
 * the request repeated), never -32603 with a schema dump; a call that names a
 * tool gets its argument problems from the core, as an isError envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runningEngram, type RunningEngram } from "./fixtures/mcp-harness.js";
import { SECRET } from "./helpers/envelope-table.js";

let srv: RunningEngram;
beforeAll(async () => {
  srv = await runningEngram();
});
afterAll(async () => srv?.close());

type Reply = { id: number; error?: { code: number; message: string }; result?: { isError?: boolean; content: { text: string }[] } };

async function rpc(body: Record<string, unknown>, status = 200): Promise<Reply> {
  const res = await fetch(`${srv.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", ...body }),
  });
  expect(res.status).toBe(status);
  return (await res.json()) as Reply;
}

const PROTOCOL_ROWS: { name: string; body: Record<string, unknown>; message: string }[] = [
  { name: "no params at all", body: {}, message: "tools/call needs params: an object with the tool name and its arguments." },
  { name: "a name that is not a string", body: { params: { name: [SECRET], arguments: {} } }, message: "tools/call params.name must be a string naming a tool." },
  { name: "arguments that are a list", body: { params: { name: "get_memory", arguments: [SECRET] } }, message: "tools/call params.arguments must be an object." },
  { name: "arguments that are a string", body: { params: { name: "get_memory", arguments: SECRET } }, message: "tools/call params.arguments must be an object." },
  { name: "arguments that are null", body: { params: { name: "get_memory", arguments: null } }, message: "tools/call params.arguments must be an object." },
  { name: "a tool this server does not list", body: { params: { name: `${SECRET}_tool`, arguments: {} } }, message: "unknown tool: tools/list names every tool this server serves." },
];

describe("a tools/call that names no tool", () => {
  it.each(PROTOCOL_ROWS)("answers $name with -32602 and one sentence", async ({ body, message }) => {
    const r = await rpc(body);
    expect(r.id).toBe(7);
    expect(r.result).toBeUndefined();
    expect(r.error).toEqual({ code: -32602, message });
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });

  it("leaves a message that is not JSON-RPC at all (params a list) to the transport's own short 400", async () => {
    for (const body of [{ params: [SECRET] }, { params: { name: "get_memory", arguments: {}, _meta: SECRET } }]) {
      const r = await rpc(body, 400);
      expect(r.error).toEqual({ code: -32700, message: "Parse error: Invalid JSON-RPC message" });
      expect(JSON.stringify(r)).not.toContain(SECRET);
    }
  });

  it("logs none of it", () => {
    expect(srv.log.text()).not.toContain(SECRET);
  });
});

describe("a tools/call that names a tool", () => {
  it("gets a wrong argument type from the core as an isError envelope, not the SDK's -32602", async () => {
    const r = await rpc({ params: { name: "search_memory", arguments: { query: "q", scope: "s", k: -1 } } });
    expect(r.error).toBeUndefined();
    expect(r.result?.isError).toBe(true);
    expect(r.result?.content.map((c) => c.text)).toEqual(["field=k hint=format: k must be a non-negative integer"]);
  });

  it("treats arguments left out as no arguments at all", async () => {
    const r = await rpc({ params: { name: "get_memory" } });
    expect(r.result?.content.map((c) => c.text)).toEqual(["field=id hint=required: id is required"]);
  });

  it("reads an argument set to null as not sent", async () => {
    const r = await rpc({ params: { name: "list_tags", arguments: { scope: null, limit: null } } });
    expect(r.result?.isError).toBeFalsy();
  });
});
