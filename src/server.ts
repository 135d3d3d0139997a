/**
 * One listener for everything.
 *
 * A single TCP port serves Connect and gRPC-Web over HTTP/1.1 and gRPC and
 * Connect over cleartext HTTP/2 with prior knowledge. Node's h2c server cannot
 * take HTTP/1.1 on the same socket, so a plain `net.Server` accepts each
 * connection, looks at the first bytes, and hands the socket to either an
 * `http2` server (the bytes are the HTTP/2 client preface) or an `http`
 * server (anything else), after putting the sniffed bytes back.
 *
 * Before any route: a request whose Origin is not allowed, or (on a loopback
 * bind) whose Host is not a loopback name, is answered 403 (DNS rebinding:
 * a web page must not reach a local server by renaming it). A request body
 * has a deadline; one still arriving when the response is done is cut off.
 *
 * Routes, identical for both protocols:
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
import http from "node:http";
import type { ServerResponse } from "node:http";
import http2 from "node:http2";
import type { Http2ServerRequest, ServerHttp2Session } from "node:http2";
import net from "node:net";

import { CallerGate, type AuthFailure, type AuthLane, type AuthResult, type Authenticator, type ConsoleSignIn, type ProtectedResource } from "./auth/index.js";
import type { AnyRequest, AnyResponse, Handler } from "./node-http.js";
import { defaultConsoleDir, isConsolePath, serveConsole } from "./ui/console-route.js";
import { SIGN_IN_PATHS, isSignInPath, serveSignIn } from "./ui/sign-in-route.js";
import { REQUEST_TIMEOUT_MS, originOf, parseListenAddr } from "./listen-config.js";

export type { AnyRequest, AnyResponse, Handler } from "./node-http.js";
export {
  ALLOWED_ORIGINS_ENV,
  DEFAULT_LISTEN_ADDR,
  REQUEST_TIMEOUT_ENV,
  REQUEST_TIMEOUT_MS,
  allowedOriginsFromEnv,
  listenAddrOf,
  parseListenAddr,
  requestTimeoutFromEnv,
} from "./listen-config.js";

export type ServerOptions = {
  /** "host:port", e.g. "127.0.0.1:8080"; port 0 picks a free port; "[::1]:0" for IPv6. */
  listenAddr: string;
  /** The connectNodeAdapter handler (serves /engram.v1.EngramService/*). */
  connect: Handler;
  /** Mounted at `mcpPath` when given. */
  mcp?: Handler;
  /** Default "/mcp". */
  mcpPath?: string;
  /** Guards the MCP, Connect and /metrics routes: 401 when auth is on and the bearer is missing or wrong. */
  auth: Authenticator;
  /** RFC 9728: the document served at its well-known paths, and the URL every 401 points at. */
  protectedResource?: ProtectedResource;
  /** Console sign-in through the issuer (its routes under /ui/, and the session cookie lane on Connect). */
  consoleSignIn?: ConsoleSignIn;
  /** Told the lane and failure class of every refused credential (the /metrics counter); never the credential. */
  onUnauthenticated?: (lane: AuthLane, failure: AuthFailure) => void;
  /** Structured log sink. */
  log: (line: Record<string, unknown>) => void;
  /**
   * The Prometheus exposition for GET /metrics. It reports across owners
   * (record counts, traffic), so it sits behind the same bearer check as MCP
   * and Connect; the probes stay open because they disclose only up/ready.
   */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** The parts not ready to serve yet, as fixed words (e.g. "index"); always ready when absent. */
  waiting?: () => readonly string[];
  /** Origins a browser page may call from, besides the server's own (see `allowedOriginsFromEnv`). */
  allowedOrigins?: readonly string[];
  /** How long a request may take to arrive in full, headers and body; default REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
  /** The built console (`npm run build`); default dist/ui under the package root. */
  consoleDir?: string;
};

/** After answering a request whose body is still arriving, how long the rest may drain before the connection goes. */
const UNREAD_BODY_GRACE_MS = 1_000;

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || net.isIPv4(host) && host.startsWith("127.");
}

/** Host (HTTP/1.1) or :authority (HTTP/2), as name and optional port. */
function authorityOf(req: AnyRequest): { name: string; port?: string } | undefined {
  const raw = (req.headers[":authority"] ?? req.headers.host) as string | undefined;
  if (typeof raw !== "string" || raw === "") return undefined;
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(raw.trim().toLowerCase());
  if (!m) return undefined;
  return m[2] === undefined ? { name: m[1]! } : { name: m[1]!, port: m[2] };
}

export type RunningServer = {
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
};

/** The HTTP/2 client connection preface (RFC 9113 §3.4). */
const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
/** A connection that has not sent enough bytes to pick a protocol by then is dropped. */
const SNIFF_TIMEOUT_MS = 10_000;
/** How long close() lets in-flight requests finish before destroying sockets. */
const CLOSE_GRACE_MS = 1_500;
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

type SocketKind = "sniffing" | "http1" | "http2";

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const { host, port: requestedPort } = parseListenAddr(opts.listenAddr);
  const mcpPath = opts.mcpPath ?? DEFAULT_MCP_PATH;
  const { auth, log } = opts;
  const requestTimeoutMs = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const loopback = isLoopbackHost(host);
  /** Filled in once the port is known. */
  const allowed = new Set<string>(opts.allowedOrigins ?? []);

  /**
   * One check in front of every route. A request without Origin (CLI, SDKs,
   * MCP clients) passes; a browser's Origin must be the server's own or
   * configured. The 403 says nothing about the server.
   */
  const admitted = (req: AnyRequest): boolean => {
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const o = typeof origin === "string" ? originOf(origin) : undefined;
      if (o === undefined || !allowed.has(o)) return false;
    }
    if (loopback) {
      const a = authorityOf(req);
      // The name is what DNS rebinding changes; any port passes, so a proxy
      // on another loopback port keeps working.
      if (a === undefined || !LOOPBACK_NAMES.has(a.name)) return false;
    }
    return true;
  };

  /**
   * The body deadline, and the end of a request answered before its body was
   * read (a 401, a 403, a body over the limit): the unread rest is not
   * buffered, and the connection (HTTP/1.1) or stream (HTTP/2) is closed
   * shortly after the answer is out.
   */
  const guardBody = (req: AnyRequest, res: AnyResponse): void => {
    const isH2 = "stream" in req;
    const cut = (): void => {
      if (isH2) {
        const stream = (req as Http2ServerRequest).stream;
        if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
      } else {
        req.socket.destroy();
      }
    };
    const timer = setTimeout(() => {
      if (!req.complete) cut();
    }, requestTimeoutMs);
    timer.unref();
    const done = (): void => clearTimeout(timer);
    req.once("end", done);
    res.once("close", done);
    // HTTP/2's compat response reports "finish" only once the whole stream
    // closes; the stream itself says when our side is done.
    const answered = isH2 ? (req as Http2ServerRequest).stream : res;
    answered.once("finish", () => {
      if (req.complete) return;
      // Resetting at once could overtake the answer still queued on the
      // wire. The rest is discarded (never buffered) for a grace period; a
      // client that finishes sending in time keeps its connection.
      req.resume();
      setTimeout(() => {
        if (!req.complete) cut();
      }, UNREAD_BODY_GRACE_MS).unref();
    });
  };

  let closing = false;
  const sockets = new Map<net.Socket, SocketKind>();
  /** In-flight HTTP/1.1 requests per socket, to find idle keep-alive connections. */
  const inflight = new Map<net.Socket, number>();
  const sessions = new Set<ServerHttp2Session>();

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

  const route = (req: AnyRequest, res: AnyResponse): void => {
    const path = pathOf(req.url);
    try {
      guardBody(req, res);
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

  // --- HTTP/1.1 -----------------------------------------------------------
  const h1 = http.createServer(
    // connectionsCheckingInterval: how often headersTimeout is enforced.
    { requestTimeout: requestTimeoutMs, headersTimeout: Math.min(10_000, requestTimeoutMs), keepAliveTimeout: 5_000, connectionsCheckingInterval: 2_000 },
    (req, res) => {
      const socket = req.socket;
      inflight.set(socket, (inflight.get(socket) ?? 0) + 1);
      let done = false;
      const finished = (): void => {
        if (done) return;
        done = true;
        const n = (inflight.get(socket) ?? 1) - 1;
        inflight.set(socket, n);
        if (closing && n <= 0) socket.destroySoon();
      };
      res.once("finish", finished);
      res.once("close", finished);
      if (closing) res.setHeader("connection", "close");
      route(req, res);
    },
  );
  h1.keepAliveTimeout = 5_000;
  h1.headersTimeout = Math.min(10_000, requestTimeoutMs);
  h1.requestTimeout = requestTimeoutMs;
  // --- HTTP/2 (h2c, prior knowledge) ---------------------------------------
  const h2 = http2.createServer({}, route);
  h2.on("session", (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    session.on("error", () => {
      /* peer went away; the socket close path cleans up */
    });
  });
  h2.on("sessionError", () => {
    /* quiet: per-connection failures are not server failures */
  });

  // --- the one TCP listener -----------------------------------------------
  const handoff = (socket: net.Socket, head: Buffer, kind: "http1" | "http2"): void => {
    sockets.set(socket, kind);
    // Paused, so the bytes put back stay buffered until the new owner reads.
    socket.pause();
    if (head.length > 0) socket.unshift(head);
    if (kind === "http2") {
      // The HTTP/2 session takes over the socket's handle and feeds itself
      // whatever is still buffered on the JS side (on the next tick), so the
      // socket must stay paused: resuming would emit those bytes to nobody.
      h2.emit("connection", socket);
    } else {
      h1.emit("connection", socket);
      socket.resume();
    }
  };

  const tcp = net.createServer({ allowHalfOpen: false, noDelay: true, pauseOnConnect: false }, (socket) => {
    sockets.set(socket, "sniffing");
    socket.on("error", () => {
      /* quiet: resets and aborts are normal */
    });
    socket.once("close", () => {
      sockets.delete(socket);
      inflight.delete(socket);
    });
    if (closing) {
      socket.destroy();
      return;
    }

    let head: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), SNIFF_TIMEOUT_MS);
    timer.unref();
    const stop = (): void => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
    };
    const onEnd = (): void => {
      stop();
      socket.destroy();
    };
    const onData = (chunk: Buffer): void => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const n = Math.min(head.length, H2_PREFACE.length);
      const isPrefix = head.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
      if (isPrefix && head.length < H2_PREFACE.length) return; // undecided: wait for more
      stop();
      handoff(socket, head, isPrefix ? "http2" : "http1");
    };
    socket.on("data", onData);
    socket.once("end", onEnd);
  });
  tcp.on("error", (err) => {
    log({ level: "error", msg: "listener error", error: err.message });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    tcp.once("error", onError);
    tcp.listen({ host, port: requestedPort }, () => {
      tcp.off("error", onError);
      resolve();
    });
  });
  // The inner HTTP/1.1 server never listens itself; "listening" switches on
  // its connection tracking, which enforces headersTimeout and makes
  // closeIdleConnections() work for handed-off sockets.
  h1.emit("listening");

  const address = tcp.address();
  const port = typeof address === "object" && address !== null ? address.port : requestedPort;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  allowed.add(new URL(url).origin);
  if (loopback) for (const name of LOOPBACK_NAMES) allowed.add(`http://${name}:${port}`);

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      const listenerClosed = new Promise<void>((resolve) => tcp.close(() => resolve()));

      // Idle HTTP/1.1 keep-alive connections and undecided sockets go now.
      for (const [socket, kind] of sockets) {
        if (kind === "sniffing") socket.destroy();
        else if (kind === "http1" && (inflight.get(socket) ?? 0) === 0) socket.destroy();
      }
      h1.closeIdleConnections();
      h1.close(() => {
        /* never listened itself: the callback only reports "not running" */
      });
      // HTTP/2: GOAWAY, let open streams finish.
      for (const session of sessions) {
        if (!session.closed && !session.destroyed) session.close();
      }

      const deadline = Date.now() + CLOSE_GRACE_MS;
      while (sockets.size > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
      }
      for (const session of sessions) session.destroy();
      for (const socket of sockets.keys()) socket.destroy();
      await listenerClosed;
    })();
    return closed;
  };

  return { url, host, port, close };
}
