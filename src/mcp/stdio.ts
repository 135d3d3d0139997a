import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ANONYMOUS, ownerSubject, type Core, type Subject } from "../core/index.js";
import { accessLog } from "../observe/index.js";
import type { AnyToolHandler } from "./handlers.js";
import { createMcpServer } from "./mcp-server.js";

export const MCP_OWNER_ENV = "ENGRAM_MCP_OWNER";

/**
 * Who a local stdio session acts as. There is no bearer token on a pipe: the
 * operator who starts `engram mcp` names the owner, or the session is
 * anonymous (owner "").
 */
export function stdioSubject(env: NodeJS.ProcessEnv = process.env): Subject {
  const owner = env[MCP_OWNER_ENV];
  return owner === undefined || owner === "" ? ANONYMOUS : ownerSubject(owner);
}

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
