/**
 * The Node request handler for Connect, gRPC and gRPC-Web. It replaces
 * connectNodeAdapter so that every method's universal handler sits behind the
 * request gate, and so that the gate, not the library, reads the body (the
 * library decodes it).
 */
import type { ServerResponse } from "node:http";
import { Code, ConnectError, createConnectRouter, type ConnectRouter } from "@connectrpc/connect";
import { codeFromHttpStatus } from "@connectrpc/connect/protocol-connect";
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import type { Core, Logger } from "../core/index.js";
import { admissionOf, type Authenticator } from "../auth/index.js";
import { callSpan, type CallProtocol, type RequestObserver } from "../observe/index.js";
import { attachOutcome, outcomeInterceptor, type OutcomeSlot } from "./outcome-context.js";
import { LIBRARY_JSON_OPTIONS } from "./decode-once.js";
import { decodeWatchInterceptor } from "./decode-watch.js";
import { gateHandler } from "./request-gate.js";
import { engramRoutes } from "./routes.js";
import { reflectionRoutes } from "../reflection/index.js";
import type { AnyRequest as NodeRequest, AnyResponse as NodeResponse } from "../node-http.js";
import { requireSubject, resolvedSubject, subjectContextValues } from "./subject-context.js";

export type ConnectHandlerOptions = {
  core: Core;
  log: Logger;
  auth: Authenticator;
  maxRequestBytes: number;
  /** Told how each RPC ended (the access log, the metrics); nothing when absent. */
  observe?: RequestObserver;
  /**
   * More services, served behind the same gate, interceptors and context as
   * EngramService (the read-cost bench's no-op RPC); none in `engram serve`.
   */
  extraRoutes?: (router: ConnectRouter) => void;
};


export function connectNodeHandler(opts: ConnectHandlerOptions): (req: NodeRequest, res: NodeResponse) => void {
  const router = createConnectRouter({
    // The gate enforces the limit first with its own envelope; this is the backstop.
    readMaxBytes: opts.maxRequestBytes,
    // Request bodies reach the library already decompressed; these only pick the response encoding.
    acceptCompression: [compressionGzip, compressionBrotli],
    jsonOptions: LIBRARY_JSON_OPTIONS,
    interceptors: [outcomeInterceptor, decodeWatchInterceptor],
  });
  engramRoutes(opts.core, opts.log)(router);
  opts.extraRoutes?.(router);
  const handlers = new Map(router.handlers.map((h) => [h.requestPath, gateHandler(h, { maxRequestBytes: opts.maxRequestBytes, log: opts.log })]));
  // Reflection streams, so the unary gate (which reads one whole message)
  // does not front it; the bearer check runs in the service before any read,
  // and the router's readMaxBytes bounds each message.
  const reflection = createConnectRouter({ readMaxBytes: opts.maxRequestBytes, interceptors: [outcomeInterceptor] });
  reflectionRoutes((ctx) => void requireSubject(ctx))(reflection);
  for (const h of reflection.handlers) handlers.set(h.requestPath, h);
  const contextValues = subjectContextValues(opts.auth);

  return (req, res) => {
    const path = (req.url ?? "").split("?", 2)[0] ?? "";
    const handler = handlers.get(path);
    if (!handler) {
      // No route, so nothing to authenticate for: the listener's challenge belongs to a 401.
      (res as ServerResponse).removeHeader("www-authenticate");
      (res as ServerResponse).writeHead(404);
      res.end();
      return;
    }
    const started = performance.now();
    const values = contextValues(req);
    const slot = attachOutcome(values);
    const span = callSpan(() => ({
      protocol: protocolOf(req.headers["content-type"]),
      service: handler.service.typeName,
      procedure: handler.method.name,
      headers: req.headers,
      authLane: admissionOf(req)?.lane,
    }));
    if (opts.observe || span) {
      const observe = opts.observe;
      let told = false;
      const tell = (): void => {
        if (told) return;
        told = true;
        // Closed before the answer was out: the caller went away.
        if (slot.code === undefined && !res.writableFinished) slot.code = Code.Canceled;
        const code = codeOf(slot, res);
        span?.end({ code, hint: slot.hint, fields: slot.fields });
        observe?.({
          lane: "connect",
          procedure: handler.method.name,
          code,
          durationMs: performance.now() - started,
          owner: resolvedSubject(values)?.owner,
          ...(slot.hint !== undefined ? { hint: slot.hint } : {}),
        });
      };
      res.once("finish", tell);
      res.once("close", tell);
    }
    let uReq;
    try {
      uReq = universalRequestFromNodeRequest(req, res, undefined, values);
    } catch {
      // No authority to build a URL from: not a request any client sends.
      (res as ServerResponse).writeHead(400);
      res.end();
      return;
    }
    (span ? span.run(() => handler(uReq, req)) : handler(uReq, req))
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

/** Which of the three protocols a call speaks, by its content type (the library answers any other with 415). */
function protocolOf(contentType: string | undefined): CallProtocol {
  const ct = (contentType ?? "").toLowerCase();
  if (ct.startsWith("application/grpc-web")) return "grpc-web";
  if (ct.startsWith("application/grpc")) return "grpc";
  return "connect";
}

/**
 * The code a finished RPC ended with: what the gate or the service noted,
 * else what the library answered by itself (an unsupported content type, a
 * wrong method), read from the HTTP status the way a Connect client would.
 */
function codeOf(slot: OutcomeSlot, res: NodeResponse): Code | "ok" {
  if (slot.code !== undefined) return slot.code;
  const status = res.statusCode;
  if (status >= 200 && status < 300) return "ok";
  // A wrong method or content type: the caller asked for something not served here.
  if (status === 405 || status === 415) return Code.Unimplemented;
  return codeFromHttpStatus(status);
}
