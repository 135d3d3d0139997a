/**
 * The routes, identical for HTTP/1.1 and HTTP/2:
 *   GET|HEAD /healthz   → 200 {"status":"ok"} (liveness: the process answers)
 *   GET|HEAD /readyz    → 200 {"status":"ready"}, or 503 {"status":"not_ready","waiting":[…]}
 *   GET /.well-known/oauth-protected-resource[/<resource path>] → RFC 9728 metadata (when configured)
 *   GET /metrics        → bearer check, then the Prometheus text (when `metrics` is given)
 *   <mcpPath>           → bearer check, then the MCP handler
 *   /ui/login, /ui/auth, /ui/logout and the redirect URL's path → console sign-in (src/ui/sign-in-route.ts)
 *   GET|HEAD / and /ui  → 302 to /ui/, the operator console (static files, see src/ui)
 *   GET|HEAD /ui/…      → the console's built files
 *   everything else     → bearer check, then the Connect handler (which answers 404 itself, and
 *                         refuses an unadmitted caller in the caller's protocol)
 *
 * The bearer check runs here, once per request, because it may wait on the
 * network (an issuer's keys); the answer stays with the request (src/auth's
 * admitRequest) for the Connect and MCP handlers. Every refusal carries
 * `WWW-Authenticate` with the failure class and, when configured, the
 * protected-resource document's URL.
 */
import type { ServerResponse } from "node:http";

import { CallerGate, type AuthFailure, type AuthResult } from "../auth/index.js";
import type { AnyRequest, AnyResponse, Handler } from "../node-http.js";
import { defaultConsoleDir, isConsolePath, serveConsole } from "../ui/console-route.js";
import { SIGN_IN_PATHS, isSignInPath, serveSignIn } from "../ui/sign-in-route.js";
import { guardBody } from "./guard.js";
import type { ServerOptions } from "./options.js";

const DEFAULT_MCP_PATH = "/mcp";

function pathOf(url: string | undefined): string {
  if (!url) return "/";
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

function sendJson(res: AnyResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  // The union's writeHead overloads do not intersect cleanly; both accept this shape.
  (res as ServerResponse).writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** The handler both protocol servers call for each request: the guard first, then the route. */
export function createRouter(opts: ServerOptions, admitted: (req: AnyRequest) => boolean, requestTimeoutMs: number): Handler {
  const mcpPath = opts.mcpPath ?? DEFAULT_MCP_PATH;
  const { auth, log } = opts;
  const resourcePaths = new Set(opts.protectedResource?.document ? opts.protectedResource.paths : []);

  const gate = new CallerGate({ auth, protectedResource: opts.protectedResource, session: opts.consoleSignIn?.session, onUnauthenticated: opts.onUnauthenticated });
  const unauthorized = (res: AnyResponse, failure: AuthFailure): void => {
    const { status, body, headers } = gate.refusal(failure);
    sendJson(res, status, body, headers);
  };

  /** Resolves the caller (src/auth's CallerGate keeps the answer with the request), then goes on; a handler that throws is answered 500. */
  const checked = (req: AnyRequest, res: AnyResponse, path: string, next: (answer: AuthResult) => void, cookie = false): void => {
    gate
      .resolve(req, cookie)
      .then(next)
      .catch((err: unknown) => {
        log({ level: "error", msg: "request handler threw", path, error: err instanceof Error ? err.name : "unknown" });
        if (!res.headersSent) sendJson(res, 500, { error: "internal error" });
        else res.destroy();
      });
  };

  return (req: AnyRequest, res: AnyResponse): void => {
    const path = pathOf(req.url);
    try {
      guardBody(req, res, requestTimeoutMs);
      if (!admitted(req)) {
        // Bare: a page on a foreign origin learns nothing, not even that a JSON service answered.
        (res as ServerResponse).writeHead(403, { "content-length": "0" });
        res.end();
        return;
      }
      if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
        sendJson(res, 200, { status: "ok" });
        return;
      }
      if (path === "/readyz" && (req.method === "GET" || req.method === "HEAD")) {
        const waiting = opts.waiting?.() ?? [];
        if (waiting.length === 0) sendJson(res, 200, { status: "ready" });
        else sendJson(res, 503, { status: "not_ready", waiting: [...waiting] });
        return;
      }
      if (resourcePaths.has(path) && (req.method === "GET" || req.method === "HEAD")) {
        sendJson(res, 200, opts.protectedResource!.document, { "cache-control": "max-age=300" });
        return;
      }
      if (opts.metrics && path === "/metrics" && (req.method === "GET" || req.method === "HEAD")) {
        const metrics = opts.metrics;
        checked(req, res, path, (answer) => {
          if (!answer.ok) {
            unauthorized(res, answer.failure);
            return;
          }
          metrics().then(
            ({ contentType, body }) => {
              (res as ServerResponse).writeHead(200, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)) });
              if (req.method === "HEAD") res.end();
              else res.end(body);
            },
            (err: unknown) => {
              log({ level: "error", msg: "metrics collection failed", error: err instanceof Error ? err.name : "unknown" });
              if (!res.headersSent) sendJson(res, 500, { error: "internal error" });
            },
          );
        });
        return;
      }
      if (opts.mcp && path === mcpPath) {
        const mcp = opts.mcp;
        checked(req, res, path, (answer) => {
          if (answer.ok) {
            mcp(req, res);
            return;
          }
          // The caller's problem, so info, as a refused Connect call; `credential` is the lane the token was read by.
          log({ level: "info", msg: "mcp request rejected: missing or invalid bearer token", path, credential: answer.lane, failure: answer.failure });
          // Read the unread request body first: answering an HTTP/2 stream
          // whose body is still arriving resets it, and the client sees a
          // framing error instead of the 401.
          const reject = () => unauthorized(res, answer.failure);
          if (req.readableEnded) reject();
          else {
            req.once("end", reject);
            req.once("error", reject);
            req.resume();
          }
        });
        return;
      }
      if (isSignInPath(opts.consoleSignIn, path)) {
        const signIn = (caller?: AuthResult) =>
          serveSignIn(opts.consoleSignIn, req, res as ServerResponse, path, (err) => log({ level: "error", msg: "console sign-in failed", error: err instanceof Error ? err.name : "unknown" }), {
            anonymous: auth.anonymous,
            caller,
          });
        // /ui/auth names whoever the request's credential (a session or a bearer) is, as Connect would admit it.
        if (path === SIGN_IN_PATHS.auth && (req.headers.authorization !== undefined || req.headers.cookie !== undefined)) checked(req, res, path, signIn, true);
        else signIn();
        return;
      }
      if (isConsolePath(path)) {
        serveConsole(opts.consoleDir ?? defaultConsoleDir(), req.method, path, res as ServerResponse);
        return;
      }
      checked(
        req,
        res,
        path,
        (answer) => {
          // The Connect handler refuses an unadmitted caller itself, in the caller's protocol.
          for (const [name, value] of Object.entries(gate.connectHeaders(answer))) res.setHeader(name, value);
          opts.connect(req, res);
        },
        true,
      );
    } catch (err) {
      log({ level: "error", msg: "request handler threw", path, error: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) {
        sendJson(res, 500, { error: "internal error" });
      } else {
        res.destroy();
      }
    }
  };
}
