/**
 * What a request costs before it is trusted: an unauthenticated body is
 * answered before it is read, an oversized one is cut off at the limit, a
 * body that never finishes arriving is dropped, and a gRPC stream whose first
 * message is bad is ended. Each claim is shown by ordering and byte counts
 * (the answer arrives while the client still has most of its body unsent),
 * never by a duration.
 */
import http2 from "node:http2";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { grpcFrame } from "./helpers/raw-rpc.js";

const PATH = "/engram.v1.EngramService/SearchMemories";
const BIG = 50 * 1024 * 1024;
const MAX = 1024 * 1024;

type Exchange = { head: string; body: string; sentWhenAnswered: number; sentTotal: number };

/**
 * Streams up to `total` bytes of body over a raw HTTP/1.1 socket, one chunk
 * per drain, and stops writing the moment the server's answer starts.
 */
function sendUntilAnswered(port: number, headers: string, total: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1");
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    let sentWhenAnswered = -1;
    let got = "";
    const pump = (): void => {
      while (sentWhenAnswered < 0 && sent < total) {
        const n = Math.min(chunk.length, total - sent);
        sent += n;
        if (!s.write(chunk.subarray(0, n))) {
          s.once("drain", pump);
          return;
        }
      }
    };
    s.on("connect", () => {
      s.write(headers);
      pump();
    });
    s.setEncoding("latin1").on("data", (d: string) => {
      if (sentWhenAnswered < 0) sentWhenAnswered = sent;
      got += d;
      const end = got.indexOf("\r\n\r\n");
      const m = /content-length: (\d+)/i.exec(got);
      if (end >= 0 && m && got.length >= end + 4 + Number(m[1])) {
        s.destroy();
        resolve({ head: got.slice(0, end), body: got.slice(end + 4, end + 4 + Number(m[1])), sentWhenAnswered, sentTotal: sent });
      }
    });
    s.on("error", (e) => (sentWhenAnswered >= 0 ? undefined : reject(e)));
  });
}

const head = (port: number, extra: string) =>
  `POST ${PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n${extra}\r\n`;

describe("with bearer tokens on", () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer({
      env: { ENGRAM_AUTH_TOKENS: "alice=tok-alice", ENGRAM_MAX_REQUEST_BYTES: String(MAX) },
    });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => server?.close());

  it("answers an unauthenticated 50 MB body with 401 before the client has sent a tenth of it", async () => {
    const x = await sendUntilAnswered(port, head(port, `content-length: ${BIG}\r\n`), BIG);
    expect(x.head.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
    expect(JSON.parse(x.body)).toEqual({ code: "unauthenticated", message: "a valid bearer token is required" });
    expect(x.sentWhenAnswered).toBeLessThan(BIG / 10);
  });

  it("answers an unauthenticated chunked body (no length to go by) the same way", async () => {
    const x = await sendUntilAnswered(port, head(port, "transfer-encoding: chunked\r\n") + `${BIG.toString(16)}\r\n`, BIG);
    expect(x.head.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
    expect(x.sentWhenAnswered).toBeLessThan(BIG / 10);
  });

  it("answers an authenticated declared-oversize body with the too_long envelope before reading it", async () => {
    const x = await sendUntilAnswered(port, head(port, `authorization: Bearer tok-alice\r\ncontent-length: ${BIG}\r\n`), BIG);
    expect(x.head.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    expect(JSON.parse(x.body).message).toBe(`field=request hint=too_long: request too large: ${BIG} bytes (max ${MAX})`);
    expect(JSON.parse(x.body).code).toBe("invalid_argument");
    expect(x.sentWhenAnswered).toBeLessThan(BIG / 10);
  });

  it("answers an MCP body declared over the limit with the same too_long envelope, as a JSON-RPC error, before reading it", async () => {
    const mcpHead = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nauthorization: Bearer tok-alice\r\n`;
    const x = await sendUntilAnswered(port, `${mcpHead}content-length: ${BIG}\r\n\r\n`, BIG);
    expect(x.head.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
    expect(JSON.parse(x.body)).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: `field=request hint=too_long: request too large: ${BIG} bytes (max ${MAX})` }, id: null });
    expect(x.sentWhenAnswered).toBeLessThan(BIG / 10);

    // With no length to go by, the same limit cuts the body off.
    const chunked = await sendUntilAnswered(port, `${mcpHead}transfer-encoding: chunked\r\n\r\n${BIG.toString(16)}\r\n`, BIG);
    expect(chunked.head.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
    expect(JSON.parse(chunked.body).error.message).toContain(`${MAX} bytes`);
  });

  it("stops reading an authenticated body with no declared length once it passes the limit", async () => {
    // A chunked body: the server counts what arrives and stops past the limit.
    const x = await sendUntilAnswered(port, head(port, "authorization: Bearer tok-alice\r\ntransfer-encoding: chunked\r\n") + `${(BIG).toString(16)}\r\n`, BIG);
    expect(x.head.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    const m = /^field=request hint=too_long: request too large: (\d+) bytes \(max 1048576\)$/.exec(JSON.parse(x.body).message);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(MAX);
    expect(x.sentWhenAnswered).toBeLessThan(BIG / 10);
  });

  it("refuses a 50 KiB gzip body that expands to 50 MB with the too_long envelope", async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"query":"'), Buffer.alloc(BIG, 0x61), Buffer.from('"}')]), { level: 9 });
    expect(bomb.length).toBeLessThan(100 * 1024);
    const res = await fetch(`${server.url}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip", authorization: "Bearer tok-alice" },
      body: bomb,
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("invalid_argument");
    const m = /^field=request hint=too_long: request too large: (\d+) bytes \(max 1048576\)$/.exec(body.message);
    expect(m).not.toBeNull();
    // It stopped expanding near the limit: far below what the bomb holds.
    expect(Number(m![1])).toBeLessThan(BIG / 10);
  });

  it("ends a gRPC stream whose first message does not decode, while the client still holds it open", async () => {
    const session = http2.connect(server.url);
    try {
      const stream = session.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc", te: "trailers", authorization: "Bearer tok-alice" });
      let trailers: http2.IncomingHttpHeaders | undefined;
      let clientEndedWhenAnswered: boolean | undefined;
      stream.on("trailers", (t) => {
        trailers = t;
        clientEndedWhenAnswered = stream.writableEnded;
      });
      stream.on("response", (h) => {
        if (h["grpc-status"] !== undefined) trailers = h;
      });
      stream.resume();
      // The first message is bad; the client never ends its side.
      stream.write(grpcFrame(Buffer.from([0x07])));
      await new Promise<void>((resolve) => stream.once("close", () => resolve()));
      expect(trailers?.["grpc-status"]).toBe("3");
      expect(decodeURIComponent(String(trailers?.["grpc-message"]))).toBe(
        "field=request hint=format: the body is not a valid engram.v1.SearchMemoriesRequest",
      );
      // Answered, then closed by the server, while the client never ended its side.
      expect(clientEndedWhenAnswered).toBe(false);
    } finally {
      session.destroy();
    }
  });

  it("answers an unauthenticated gRPC call before its 50 MB body is sent", async () => {
    const session = http2.connect(server.url);
    try {
      const stream = session.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc", te: "trailers" });
      let status: string | undefined;
      const answered = new Promise<void>((resolve) => {
        stream.on("response", (h) => {
          if (h["grpc-status"] !== undefined) {
            status = String(h["grpc-status"]);
            resolve();
          }
        });
        stream.on("trailers", (t) => {
          status = String(t["grpc-status"]);
          resolve();
        });
        stream.on("close", () => resolve());
      });
      stream.on("error", () => {
        /* the stream is closed after the answer */
      });
      stream.resume();
      let sent = 0;
      const chunk = Buffer.alloc(64 * 1024);
      stream.write(Buffer.from([0, (BIG >>> 24) & 0xff, (BIG >>> 16) & 0xff, (BIG >>> 8) & 0xff, BIG & 0xff]));
      let done = false;
      void answered.then(() => (done = true));
      while (!done && sent < BIG) {
        sent += chunk.length;
        if (!stream.write(chunk)) await Promise.race([new Promise((r) => stream.once("drain", r)), answered]);
      }
      await answered;
      expect(status).toBe("16");
      expect(sent).toBeLessThan(BIG / 10);
    } finally {
      session.destroy();
    }
  });
});

describe("a body that never finishes arriving", () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_REQUEST_TIMEOUT_MS: "300" } });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => server?.close());

  it("is cut off by the server before the client has sent it all (HTTP/1.1)", async () => {
    const total = 400;
    const s = net.connect(port, "127.0.0.1");
    await new Promise<void>((r) => s.once("connect", () => r()));
    s.write(head(port, `content-length: ${total}\r\n`));
    const closed = new Promise<void>((r) => s.once("close", () => r()));
    s.on("error", () => {});
    let sent = 0;
    let isClosed = false;
    void closed.then(() => (isClosed = true));
    // One byte every 20 ms: 8 s for the whole body if nobody stopped it.
    while (!isClosed && sent < total) {
      s.write("a");
      sent++;
      await new Promise((r) => setTimeout(r, 20));
    }
    await closed;
    expect(sent).toBeLessThan(total);
  });

  it("is cut off by the server before the client has sent it all (HTTP/2)", async () => {
    const total = 400;
    const session = http2.connect(server.url);
    session.on("error", () => {});
    try {
      const stream = session.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc", te: "trailers" });
      stream.on("error", () => {});
      stream.resume();
      const closed = new Promise<void>((r) => stream.once("close", () => r()));
      let isClosed = false;
      void closed.then(() => (isClosed = true));
      stream.write(Buffer.from([0, 0, 0, 1, 0x90]));
      let sent = 0;
      while (!isClosed && sent < total) {
        stream.write(Buffer.from([0x61]));
        sent++;
        await new Promise((r) => setTimeout(r, 20));
      }
      await closed;
      expect(sent).toBeLessThan(total);
    } finally {
      session.destroy();
    }
  });

  it("leaves the server answering afterwards", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
  });
});
