import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { CallToolRequestSchema, ErrorCode, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import type { Code } from "@connectrpc/connect";
import { callSpan, classifyAndLog, type CallEnd, type RequestObserver } from "../observe/index.js";
import { rejectUnknownArguments, type Core, type Subject } from "../core/index.js";
import { handlerOf, type AnyToolHandler, type ToolContext } from "./handlers.js";
import { structuredJson } from "./structured-json.js";
import { sentArgumentNames, ToolCallGuard } from "./tool-call-guard.js";
import { annotationsOf, TOOL_NAMES, type ToolName } from "./tool-table.js";

export const SERVER_NAME = "engram";
export const SERVER_VERSION: string = pkg.version;

/**
 * The semver of the tool contract (names, argument names, result shapes and
 * the error envelope), advertised at initialize under
 * `capabilities.experimental["engram/contract"].version`.
 */
export const CONTRACT_VERSION = "1.0.0";
export const CONTRACT_CAPABILITY = "engram/contract";

/** Every transport it is connected to answers a malformed tools/call as a protocol error first. */
class EngramMcpServer extends McpServer {
  override connect(transport: Transport): Promise<void> {
    return super.connect(new ToolCallGuard(transport));
  }
}

/** Who sent an MCP request over HTTP, as far as a trace may say: the headers carrying its traceparent, and its bearer lane. */
export type McpCaller = { headers?: Readonly<Record<string, string | string[] | undefined>>; authLane?: string };

const UNKNOWN_TOOL = "unknown tool: tools/list names every tool this server serves.";

/** A JSON-RPC error with its message as given (an McpError would prefix "MCP error <code>: "). */
function protocolError(code: ErrorCode, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}

/**
 * One MCP server for one caller. Cheap enough to build per HTTP request,
 * which is what the stateless Streamable HTTP lane does.
 *
 * Tools are registered for tools/list (names, descriptions, the typed input
 * schemas, annotations), but tools/call is answered here rather than by the
 * SDK, which would check arguments against those schemas and answer in its
 * own words: every argument goes to the core, which names the right field.
 */
export function createMcpServer(
  core: Core,
  subject: Subject,
  observe?: RequestObserver,
  /** More tools, listed and dispatched exactly like the table's (the read-cost bench's no-op); none when served. */
  extraTools: Readonly<Record<string, AnyToolHandler>> = {},
  /** The HTTP request's caller, for its trace: its headers (traceparent) and the bearer lane that admitted it; none on stdio. */
  caller: McpCaller = {},
): McpServer {
  const server = new EngramMcpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { experimental: { [CONTRACT_CAPABILITY]: { version: CONTRACT_VERSION } } } },
  );
  const ctx: ToolContext = { core, subject };
  const run = async (name: string, h: AnyToolHandler, args: Record<string, unknown>): Promise<CallToolResult> => {
    const span = callSpan(() => ({ protocol: "mcp", service: SERVER_NAME, procedure: name, headers: caller.headers, authLane: caller.authLane }));
    if (!observe && !span) return callTool(name, h, ctx, args);
    const started = performance.now();
    let outcome: CallEnd = { code: "ok" };
    const call = () =>
      callTool(name, h, ctx, args, (o) => {
        outcome = o;
      });
    try {
      return await (span ? span.run(call) : call());
    } finally {
      span?.end(outcome);
      observe?.({ lane: "mcp", procedure: name, code: outcome.code, ...(outcome.hint !== undefined ? { hint: outcome.hint } : {}), durationMs: performance.now() - started, owner: subject.owner });
    }
  };
  for (const name of TOOL_NAMES) {
    const h = handlerOf(name);
    server.registerTool(
      name,
      { description: h.description, inputSchema: h.input, annotations: annotationsOf(name) },
      (args) => run(name, h, args),
    );
  }
  for (const [name, h] of Object.entries(extraTools)) {
    server.registerTool(name, { description: h.description, inputSchema: h.input }, (args) => run(name, h, args));
  }
  // The SDK advertises tools.listChanged once a tool is registered; this tool
  // set is fixed for the process, and the stateless HTTP lane has no stream a
  // notification could travel on, so none is promised.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  // Registered on the protocol layer, past the SDK Server's override for
  // tools/call. That override parses the request once more and parses every
  // result against CallToolResultSchema, answering the parsed copy: for a
  // full record, about 13 µs of a point read over stdio went to walking the
  // record's keys. Every result here is built by callTool in one of two
  // fixed shapes, which test/mcp-call-result.test.ts holds to that schema,
  // and the client parses it on arrival as well.
  Protocol.prototype.setRequestHandler.call(server.server, CallToolRequestSchema, (request) => {
    const name = request.params.name;
    const h = isToolName(name) ? handlerOf(name) : Object.hasOwn(extraTools, name) ? extraTools[name] : undefined;
    if (!h) throw protocolError(ErrorCode.InvalidParams, UNKNOWN_TOOL);
    return run(name, h, request.params.arguments ?? {});
  });
  return server;
}

/** JSON null means "not sent", as an empty proto3 string does on Connect. */
function withoutNulls(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
}

/**
 * Runs one tool. Success: the human line, a JSON mirror of the structured
 * result, and the structured result itself. Any rejection is classified
 * exactly as on Connect: the envelope or sentinel text is the only content,
 * and an unclassified failure is logged (src/observe) and sent as "internal error".
 */
export async function callTool(
  name: string,
  h: AnyToolHandler,
  ctx: ToolContext,
  args: Record<string, unknown>,
  onRejected?: (outcome: { code: Code; hint?: string; fields?: readonly string[] }) => void,
): Promise<CallToolResult> {
  try {
    rejectUnknownArguments(name, Object.keys(h.input), sentArgumentNames(args));
    const out = await h.run(ctx, withoutNulls(args) as never);
    const { json, structuredContent } = structuredJson(out.structured);
    return {
      content: [
        { type: "text", text: out.text },
        { type: "text", text: json },
      ],
      structuredContent,
    };
  } catch (err) {
    const c = classifyAndLog(err, ctx.core.deps.log, "tool call", { tool: name });
    onRejected?.({ code: c.code, ...(c.argError ? { hint: c.argError.hint, fields: c.argError.fields } : {}) });
    return { isError: true, content: [{ type: "text", text: c.message }] };
  }
}
