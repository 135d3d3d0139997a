export { TOOL_TABLE, TOOL_NAMES, annotationsOf } from "./tool-table.js";
export type { ToolName, ToolAnnotationSet } from "./tool-table.js";
export { TOOL_HANDLERS, handlerOf } from "./handlers.js";
export type { ToolHandler, AnyToolHandler, ToolContext, ToolOutput } from "./handlers.js";
export { createMcpServer, callTool, CONTRACT_VERSION, CONTRACT_CAPABILITY, SERVER_NAME, SERVER_VERSION } from "./mcp-server.js";
export { mcpHttpHandler } from "./http-handler.js";
export { serveStdio } from "./stdio.js";
