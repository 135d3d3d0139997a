/**
 * What stands in front of every route. A request whose Origin is not
 * allowed, or (on a loopback bind) whose Host is not a loopback name, is
 * answered 403 (DNS rebinding: a web page must not reach a local server by
 * renaming it). A request body has a deadline; one still arriving when the
 * response is done is cut off.
 */
import type { Http2ServerRequest } from "node:http2";
import http2 from "node:http2";
import net from "node:net";

import { originOf } from "../listen-config.js";
import type { AnyRequest, AnyResponse } from "../node-http.js";

/** After answering a request whose body is still arriving, how long the rest may drain before the connection goes. */
const UNREAD_BODY_GRACE_MS = 1_000;

export const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
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

/**
 * The Origin and Host check. A request without Origin (CLI, SDKs, MCP
 * clients) passes; a browser's Origin must be the server's own or
 * configured. `allowed` is the listener's set, filled in once the port is
 * known.
 */
export function originGuard(allowed: ReadonlySet<string>, loopback: boolean): (req: AnyRequest) => boolean {
  return (req) => {
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
}

/**
 * The body deadline, and the end of a request answered before its body was
 * read (a 401, a 403, a body over the limit): the unread rest is not
 * buffered, and the connection (HTTP/1.1) or stream (HTTP/2) is closed
 * shortly after the answer is out.
 */
export function guardBody(req: AnyRequest, res: AnyResponse, requestTimeoutMs: number): void {
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
}
