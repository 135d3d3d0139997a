import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { requestTooLarge } from "../argerror/index.js";
import type { Core } from "../core/index.js";
import type { AnyToolHandler } from "./handlers.js";
import { classifyAndLog, type RequestObserver } from "../observe/index.js";
import { admissionOf, subjectOf } from "../auth/index.js";
import type { AnyRequest, AnyResponse, Handler } from "../node-http.js";
import { createMcpServer } from "./mcp-server.js";

function sendJsonRpcError(res: AnyResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
  (res as ServerResponse).writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/**
 * The Streamable HTTP lane, for startServer's `mcp` option. Stateless: every
 * POST gets its own McpServer (bound to the subject the listener
 * authenticated) and its own transport, answering in plain JSON. There is no
 * session to resume, so GET (a standalone event stream) and DELETE (ending a
 * session) are answered 405, which MCP clients accept.
 */
export type McpHttpOptions = {
  /** The listener's body limit (`ENGRAM_MAX_REQUEST_BYTES`), the one Connect's calls have. */
  maxRequestBytes: number;
  observe?: RequestObserver;
  extraTools?: Readonly<Record<string, AnyToolHandler>>;
};

export function mcpHttpHandler(core: Core, opts: McpHttpOptions): Handler {
  const { maxRequestBytes: max, observe, extraTools } = opts;
  return (req: AnyRequest, res: AnyResponse): void => {
    const subject = subjectOf(req);
    if (subject === undefined) {
      // The listener authenticates before calling; without a subject, fail closed.
      sendJsonRpcError(res, 401, "unauthorized");
      return;
    }
    if (req.method !== "POST") {
      sendJsonRpcError(res, 405, "Method not allowed.", { allow: "POST" });
      return;
    }
    // A declared length over the limit is refused in the vocabulary's words before a byte is read;
    // a body with no length to go by is cut off at the same limit by the transport, in its own words.
    const declared = Number(req.headers["content-length"] ?? NaN);
    if (Number.isSafeInteger(declared) && declared > max) {
      sendJsonRpcError(res, 413, requestTooLarge(declared, max).message);
      return;
    }
    const server = createMcpServer(core, subject, observe, extraTools, { headers: req.headers, authLane: admissionOf(req)?.lane });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: max });
    res.once("close", () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      // The transport converts the Node request to a web Request; that path
      // also accepts HTTP/2 compatibility requests, whose shape differs only
      // in the types.
      .then(() => transport.handleRequest(req as IncomingMessage, res as ServerResponse))
      .catch((err: unknown) => {
        classifyAndLog(err, core.deps.log, "mcp request", {});
        if (!res.headersSent) sendJsonRpcError(res, 500, "internal error");
        else res.destroy();
      });
  };
}
