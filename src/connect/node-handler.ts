/**
 * The Node request handler for Connect, gRPC and gRPC-Web. It replaces
 * connectNodeAdapter so that every method's universal handler sits behind the
 * request gate, and so that the gate, not the library, reads the body.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { Code, ConnectError, createConnectRouter } from "@connectrpc/connect";
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import type { Core, Logger } from "../core/index.js";
import type { TokenAuth } from "../core/static-tokens.js";
import { gateHandler } from "./request-gate.js";
import { engramRoutes } from "./routes.js";
import { subjectContextValues } from "./subject-context.js";

export type ConnectHandlerOptions = {
  core: Core;
  log: Logger;
  auth: TokenAuth;
  maxRequestBytes: number;
};

type NodeRequest = IncomingMessage | Http2ServerRequest;
type NodeResponse = ServerResponse | Http2ServerResponse;

export function connectNodeHandler(opts: ConnectHandlerOptions): (req: NodeRequest, res: NodeResponse) => void {
  const router = createConnectRouter({
    // The gate enforces the limit first with its own envelope; this is the backstop.
    readMaxBytes: opts.maxRequestBytes,
    // Request bodies reach the library already decompressed; these only pick the response encoding.
    acceptCompression: [compressionGzip, compressionBrotli],
  });
  engramRoutes(opts.core, opts.log)(router);
  const handlers = new Map(router.handlers.map((h) => [h.requestPath, gateHandler(h, { maxRequestBytes: opts.maxRequestBytes, log: opts.log })]));
  const contextValues = subjectContextValues(opts.auth);

  return (req, res) => {
    const path = (req.url ?? "").split("?", 2)[0] ?? "";
    const handler = handlers.get(path);
    if (!handler) {
      (res as ServerResponse).writeHead(404);
      res.end();
      return;
    }
    let uReq;
    try {
      uReq = universalRequestFromNodeRequest(req, res, undefined, contextValues(req));
    } catch {
      // No authority to build a URL from: not a request any client sends.
      (res as ServerResponse).writeHead(400);
      res.end();
      return;
    }
    handler(uReq, req)
      .then((uRes) => universalResponseToNodeResponse(uRes, res))
      .catch((reason: unknown) => {
        if (ConnectError.from(reason).code === Code.Aborted || ConnectError.from(reason).code === Code.Canceled) return;
        opts.log.error("connect handler failed", { procedure: handler.method.name, error: reason instanceof Error ? reason.name : "unknown" });
        if (!res.headersSent) {
          (res as ServerResponse).writeHead(500);
          res.end();
        } else {
          res.destroy();
        }
      });
  };
}
