import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import { classify } from "../argerror/index.js";
import type { Core, Subject } from "../core/index.js";
import { handlerOf, type AnyToolHandler, type ToolContext } from "./handlers.js";
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

/**
 * One MCP server for one caller. Cheap enough to build per HTTP request,
 * which is what the stateless Streamable HTTP lane does.
 */
export function createMcpServer(core: Core, subject: Subject): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { experimental: { [CONTRACT_CAPABILITY]: { version: CONTRACT_VERSION } } } },
  );
  const ctx: ToolContext = { core, subject };
  for (const name of TOOL_NAMES) {
    const h = handlerOf(name);
    if (!h) continue;
    server.registerTool(
      name,
      { description: h.description, inputSchema: h.input, annotations: annotationsOf(name) },
      (args) => callTool(name, h, ctx, args),
    );
  }
  return server;
}

/**
 * Runs one tool. Success: the human line, a JSON mirror of the structured
 * result, and the structured result itself. Any rejection is classified
 * exactly as on Connect: the envelope or sentinel text is the only content,
 * and an unclassified failure is logged here and sent as "internal error".
 */
export async function callTool(name: ToolName, h: AnyToolHandler, ctx: ToolContext, args: unknown): Promise<CallToolResult> {
  try {
    const out = await h.run(ctx, args as never);
    const json = JSON.stringify(out.structured);
    return {
      content: [
        { type: "text", text: out.text },
        { type: "text", text: json },
      ],
      structuredContent: JSON.parse(json) as Record<string, unknown>,
    };
  } catch (err) {
    const c = classify(err);
    if (c.internal) {
      ctx.core.deps.log.error("tool call failed", {
        tool: name,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      });
    } else if (c.warn) {
      ctx.core.deps.log.warn("tool call unavailable", { tool: name, ...c.warn });
    }
    return { isError: true, content: [{ type: "text", text: c.message }] };
  }
}
