import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Core, Logger, Subject } from "../core/index.js";
import { accessLog } from "../observe/index.js";
import type { AnyToolHandler } from "./handlers.js";
import { createMcpServer } from "./mcp-server.js";

/**
 * The SDK's stdio reader drops a line that is not one JSON-RPC message
 * (not JSON, a batch, a request of the wrong shape) and says nothing, so the
 * client waits out its own timeout. Over HTTP the same body is answered
 * -32700; here it gets that answer too, with a null id as JSON-RPC has it
 * for a message whose id could not be read, and one log line that quotes
 * nothing of it. Every other transport error goes on as before.
 */
function answerUnreadableFrames(transport: StdioServerTransport, log: Logger): void {
  const onward = transport.onerror;
  transport.onerror = (error: Error) => {
    const notJson = error instanceof SyntaxError;
    if (!notJson && error.name !== "ZodError") {
      onward?.(error);
      return;
    }
    log.warn("mcp stdio line is not a JSON-RPC message; answered -32700", { reason: notJson ? "not_json" : "not_jsonrpc" });
    const message = notJson ? "Parse error: Invalid JSON" : "Parse error: Invalid JSON-RPC message";
    // JSON-RPC's own answer to an unreadable message; the SDK's types have no null id, the wire does.
    void transport.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message } } as unknown as JSONRPCMessage).catch(() => undefined);
  };
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
  answerUnreadableFrames(transport, engram.core.deps.log);
  engram.core.deps.log.info("mcp serving on stdio", { anonymous: subject.anonymous });
  // As loud as serve's: a client config with an empty owner variable would otherwise share the anonymous bucket unawares.
  if (subject.anonymous) engram.core.deps.log.warn("mcp stdio session is ANONYMOUS: ENGRAM_MCP_OWNER is unset or empty, so it reads and writes owner \"\"");
  await closed;
  process.stdin.off("end", finish);
  process.stdin.off("close", finish);
}
