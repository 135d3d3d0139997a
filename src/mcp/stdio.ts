import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Core, Subject } from "../core/index.js";
import { accessLog } from "../observe/index.js";
import type { AnyToolHandler } from "./handlers.js";
import { createMcpServer } from "./mcp-server.js";

/**
 * Serves MCP over this process's stdin/stdout until stdin ends. stdout
 * carries protocol frames only; every log line goes to the engram logger
 * (stderr). `extraTools` as for createMcpServer (the bench's no-op tool).
 */
export async function serveStdio(engram: { core: Core }, subject: Subject, extraTools?: Readonly<Record<string, AnyToolHandler>>): Promise<void> {
  // No listener, so no /metrics: each tool call still gets its access-log line on stderr.
  const server = createMcpServer(engram.core, subject, accessLog(engram.core.deps.log), extraTools);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const finish = (): void => {
    void server.close();
  };
  process.stdin.once("end", finish);
  process.stdin.once("close", finish);
  await server.connect(transport);
  engram.core.deps.log.info("mcp serving on stdio", { anonymous: subject.anonymous });
  await closed;
  process.stdin.off("end", finish);
  process.stdin.off("close", finish);
}
