/**
 * Raw requests in each of the four wire protocols, so tests can send bodies
 * no generated client would produce, and read back the code and message the
 * way a client of that protocol would.
 */
import http from "node:http";
import http2 from "node:http2";
import { Code } from "@connectrpc/connect";

export type Wire = "connect-json" | "connect-proto" | "grpc" | "grpc-web";

export type RawAnswer = {
  /** HTTP status. */
  status: number;
  /** The Connect code, or undefined when the answer is a success. */
  code: Code | undefined;
  message: string;
  /** Everything the server sent back, headers included, for no-echo checks. */
  raw: string;
};

const CONNECT_CODES = new Map<string, Code>(
  Object.entries(Code)
    .filter(([, v]) => typeof v === "number")
    .map(([k, v]) => [k.replace(/[A-Z]/g, (c, i) => (i === 0 ? c.toLowerCase() : `_${c.toLowerCase()}`)), v as Code]),
);

/** Wraps one message in a gRPC frame (flags 0 unless given). */
export function grpcFrame(message: Uint8Array, flags = 0): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out[0] = flags;
  out.writeUInt32BE(message.length, 1);
  Buffer.from(message).copy(out, 5);
  return out;
}

function contentType(wire: Wire, json: boolean): string {
  switch (wire) {
    case "connect-json":
      return "application/json";
    case "connect-proto":
      return "application/proto";
    case "grpc":
      return json ? "application/grpc+json" : "application/grpc";
    case "grpc-web":
      return json ? "application/grpc-web+json" : "application/grpc-web+proto";
  }
}

function h1Request(url: string, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method: "POST", headers: { "content-length": String(body.length), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

function h2Request(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.on("error", reject);
    const stream = session.request({ ":method": "POST", ":path": path, te: "trailers", ...headers });
    let head: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (head = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("close", () => {
      session.close();
      resolve({ status: Number(head[":status"] ?? 0), headers: head, trailers, body: Buffer.concat(chunks) });
    });
    stream.on("error", () => {
      /* reported through close */
    });
    stream.end(body);
  });
}

function grpcStatus(h: Record<string, unknown>): { code: Code | undefined; message: string } | undefined {
  const s = h["grpc-status"];
  if (s === undefined) return undefined;
  const n = Number(s);
  const message = decodeURIComponent(String(h["grpc-message"] ?? ""));
  return { code: n === 0 ? undefined : (n as Code), message };
}

/** Parses the trailer frame (flag 0x80) of a gRPC-Web response body. */
function grpcWebTrailer(body: Buffer): Record<string, string> {
  let at = 0;
  while (at + 5 <= body.length) {
    const flags = body[at]!;
    const len = body.readUInt32BE(at + 1);
    const data = body.subarray(at + 5, at + 5 + len);
    at += 5 + len;
    if (flags & 0x80) {
      const out: Record<string, string> = {};
      for (const line of data.toString("utf8").split("\r\n")) {
        const i = line.indexOf(":");
        if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      return out;
    }
  }
  return {};
}

/**
 * Sends `body` as is (already framed for gRPC and gRPC-Web) to `procedure`
 * (e.g. "SearchMemories") and reads back the code and message.
 */
export async function rawCall(
  url: string,
  wire: Wire,
  procedure: string,
  body: Uint8Array,
  opts: { headers?: Record<string, string>; json?: boolean } = {},
): Promise<RawAnswer> {
  const path = `/engram.v1.EngramService/${procedure}`;
  const headers = { "content-type": contentType(wire, opts.json ?? false), ...opts.headers };
  const buf = Buffer.from(body);
  if (wire === "grpc") {
    const r = await h2Request(url, path, headers, buf);
    const st = grpcStatus(r.trailers) ?? grpcStatus(r.headers) ?? { code: Code.Unknown, message: "no grpc-status" };
    return { status: r.status, ...st, raw: JSON.stringify(r.headers) + JSON.stringify(r.trailers) + r.body.toString("latin1") };
  }
  const r = await h1Request(url, path, headers, buf);
  const raw = JSON.stringify(r.headers) + r.body.toString("latin1");
  if (wire === "grpc-web") {
    const st = grpcStatus(r.headers as Record<string, unknown>) ?? grpcStatus(grpcWebTrailer(r.body)) ?? { code: Code.Unknown, message: "no grpc-status" };
    return { status: r.status, ...st, raw };
  }
  if (r.status === 200) return { status: 200, code: undefined, message: "", raw };
  let code: Code | undefined = Code.Unknown;
  let message = "";
  try {
    const j = JSON.parse(r.body.toString("utf8")) as { code?: string; message?: string };
    code = CONNECT_CODES.get(j.code ?? "") ?? Code.Unknown;
    message = j.message ?? "";
  } catch {
    message = r.body.toString("utf8");
  }
  return { status: r.status, code, message, raw };
}
