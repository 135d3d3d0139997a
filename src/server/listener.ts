/**
 * One listener for everything.
 *
 * A single TCP port serves Connect and gRPC-Web over HTTP/1.1 and gRPC and
 * Connect over cleartext HTTP/2 with prior knowledge. Node's h2c server cannot
 * take HTTP/1.1 on the same socket, so a plain `net.Server` accepts each
 * connection, looks at the first bytes, and hands the socket to either an
 * `http2` server (the bytes are the HTTP/2 client preface) or an `http`
 * server (anything else), after putting the sniffed bytes back. Every request
 * goes through the guard (guard.ts) and the routes (router.ts).
 */
import http from "node:http";
import http2 from "node:http2";
import type { ServerHttp2Session } from "node:http2";
import net from "node:net";

import { REQUEST_TIMEOUT_MS, parseListenAddr } from "../listen-config.js";
import { LOOPBACK_NAMES, isLoopbackHost, originGuard } from "./guard.js";
import type { RunningServer, ServerOptions } from "./options.js";
import { createRouter } from "./router.js";

/** The HTTP/2 client connection preface (RFC 9113 §3.4). */
const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
/** A connection that has not sent enough bytes to pick a protocol by then is dropped. */
const SNIFF_TIMEOUT_MS = 10_000;
/** How long close() lets in-flight requests finish before destroying sockets. */
const CLOSE_GRACE_MS = 1_500;

type SocketKind = "sniffing" | "http1" | "http2";

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const { host, port: requestedPort } = parseListenAddr(opts.listenAddr);
  const { log } = opts;
  const requestTimeoutMs = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const loopback = isLoopbackHost(host);
  /** Filled in once the port is known. */
  const allowed = new Set<string>(opts.allowedOrigins ?? []);
  const route = createRouter(opts, originGuard(allowed, loopback), requestTimeoutMs);

  let closing = false;
  const sockets = new Map<net.Socket, SocketKind>();
  /** In-flight HTTP/1.1 requests per socket, to find idle keep-alive connections. */
  const inflight = new Map<net.Socket, number>();
  const sessions = new Set<ServerHttp2Session>();

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
