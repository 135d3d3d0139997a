/**
 * Requests that never reach the core: bodies that do not decode, bodies over
 * the request limit, odd encodings and timeouts, and the bearer check that
 * runs before any of it. Every row is sent raw in one wire protocol and must
 * come back as the exact envelope (or the unauthenticated text) with the
 * exact Connect code; the CLI exit is the one the code maps to, and the rows
 * a CLI user can reach are also run through the real binary.
 */
import net from "node:net";
import { gzipSync } from "node:zlib";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, exitForConnectCode, parse } from "../src/argerror/index.js";
import { SearchMemoriesRequestSchema } from "../src/gen/engram/v1/engram_pb.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { grpcFrame, rawCall, type Wire } from "./helpers/raw-rpc.js";
import { runEngram } from "./helpers/run-engram.js";

const SECRET = "s3cr3t-planted-9c1e";
const MAX = 65536;

const num = (name: string) => SearchMemoriesRequestSchema.fields.find((f) => f.name === name)!.number;
const tag = (field: number, wireType: number) => (field << 3) | wireType;
const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const bytes = (...b: number[]) => Buffer.from(b);

const REQUEST_FORMAT = "field=request hint=format: the body is not a valid engram.v1.SearchMemoriesRequest";
const TOO_LARGE = (n: number | string) => `field=request hint=too_long: request too large: ${n} bytes (max ${MAX})`;
/** A body the server stopped reading early: the count is a lower bound above the limit. */
const TOO_LARGE_SOME = /^field=request hint=too_long: request too large: (\d+) bytes \(max 65536\)$/;

type Row = {
  name: string;
  wire: Wire;
  procedure?: string;
  body: Uint8Array;
  json?: boolean;
  headers?: Record<string, string>;
  envelope: string | RegExp;
  code: Code;
};

const bomb = gzipSync(json({ query: "a".repeat(2_000_000) }));

const ROWS: Row[] = [
  // Connect JSON: the field is named, the detail comes from its type.
  { name: "a string where tags wants a list", wire: "connect-json", body: json({ query: "q", tags: SECRET }), envelope: "field=tags hint=format: tags must be a list of strings", code: Code.InvalidArgument },
  { name: "a 20 KB string where tags wants a list", wire: "connect-json", body: json({ tags: SECRET + "x".repeat(20_000) }), envelope: "field=tags hint=format: tags must be a list of strings", code: Code.InvalidArgument },
  { name: "a word where k wants a number", wire: "connect-json", body: json({ query: "q", k: SECRET }), envelope: "field=k hint=format: k must be a non-negative integer", code: Code.InvalidArgument },
  { name: "a negative k", wire: "connect-json", body: json({ query: "q", k: -1 }), envelope: "field=k hint=format: k must be a non-negative integer", code: Code.InvalidArgument },
  // Proto JSON's 64-bit strings are decimal digits; BigInt would read these too, MCP and the CLI read none of them.
  { name: "a hexadecimal string for limit", wire: "connect-json", procedure: "ListMemories", body: json({ scope: "s", limit: "0x2" }), envelope: "field=limit hint=format: limit must be a non-negative integer", code: Code.InvalidArgument },
  { name: "a signed or padded string for k", wire: "connect-json", body: json({ query: "q", k: " +2 " }), envelope: "field=k hint=format: k must be a non-negative integer", code: Code.InvalidArgument },
  { name: "a string where full wants a boolean", wire: "connect-json", body: json({ query: "q", full: SECRET }), envelope: "field=full hint=format: full must be true or false", code: Code.InvalidArgument },
  { name: "the proto name is read as well as the JSON name", wire: "connect-json", body: json({ cross_spine: SECRET }), envelope: "field=cross_spine hint=format: cross_spine must be true or false", code: Code.InvalidArgument },
  { name: "a body that is not JSON", wire: "connect-json", body: Buffer.from(`{"query": ${SECRET}`), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "a JSON array for a message", wire: "connect-json", body: json([SECRET]), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "an empty JSON body", wire: "connect-json", body: Buffer.alloc(0), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "invalid UTF-8 in a JSON body", wire: "connect-json", body: Buffer.concat([Buffer.from('{"query":"'), bytes(0xff, 0xfe), Buffer.from('"}')]), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  // The library would read an unknown enum name as the field unset; the gate names the value's fault instead.
  { name: "an enum name that does not exist", wire: "connect-json", procedure: "SetVisibility", body: json({ id: "x", visibility: SECRET }), envelope: "field=visibility hint=enum: visibility must be one of VISIBILITY_UNSPECIFIED|VISIBILITY_PRIVATE|VISIBILITY_SHARED", code: Code.InvalidArgument },
  { name: "an object where an enum goes", wire: "connect-json", procedure: "SetVisibility", body: json({ id: "x", visibility: { v: SECRET } }), envelope: "field=visibility hint=enum: visibility must be one of VISIBILITY_UNSPECIFIED|VISIBILITY_PRIVATE|VISIBILITY_SHARED", code: Code.InvalidArgument },
  { name: "a not_before that is not a timestamp", wire: "connect-json", procedure: "ScheduleMemory", body: json({ content: "c", notBefore: SECRET }), envelope: "field=not_before hint=format: not_before must be RFC3339", code: Code.InvalidArgument },
  { name: "a not_after past year 9999", wire: "connect-json", procedure: "ScheduleMemory", body: json({ content: "c", notAfter: "10000-01-01T00:00:00Z" }), envelope: "field=not_after hint=format: not_after must be RFC3339", code: Code.InvalidArgument },
  { name: "an update_mask that is a number", wire: "connect-json", procedure: "UpdateMemory", body: json({ id: "x", updateMask: 7 }), envelope: "field=update_mask hint=format: update_mask must be a field mask of comma-separated field paths", code: Code.InvalidArgument },
  { name: "citations that are a string", wire: "connect-json", procedure: "StoreDiscovery", body: json({ content: "c", citations: SECRET }), envelope: "field=citations hint=format: citations must be a list of citation objects", code: Code.InvalidArgument },

  // Connect binary: what used to be `internal`.
  { name: "a length running past the end (premature EOF)", wire: "connect-proto", body: bytes(tag(num("query"), 2), 0x05, 0x61), envelope: "field=query hint=format: query must be a string", code: Code.InvalidArgument },
  { name: "an illegal tag", wire: "connect-proto", body: bytes(0x07), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "a varint that never ends", wire: "connect-proto", body: bytes(tag(num("k"), 0), ...Array(10).fill(0xff)), envelope: "field=k hint=format: k must be a non-negative integer", code: Code.InvalidArgument },
  { name: "groups nested past the recursion limit", wire: "connect-proto", body: Buffer.from(Array(150).fill([0x9b, 0x06]).flat()) /* field 99, start group, 150 deep */, envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "invalid UTF-8 in a string field", wire: "connect-proto", body: bytes(tag(num("query"), 2), 2, 0xff, 0xfe), envelope: "field=query hint=format: query must be a string", code: Code.InvalidArgument },

  // gRPC and gRPC-Web frames.
  { name: "gRPC: a frame holding garbage", wire: "grpc", body: grpcFrame(bytes(0x07)), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "gRPC: a compressed frame without grpc-encoding", wire: "grpc", body: grpcFrame(Buffer.from(SECRET), 1), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "gRPC: a frame shorter than its length prefix", wire: "grpc", body: grpcFrame(Buffer.from("abcdef")).subarray(0, 8), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "gRPC: two messages for a unary method", wire: "grpc", body: Buffer.concat([grpcFrame(Buffer.alloc(0)), grpcFrame(Buffer.alloc(0))]), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "gRPC: a frame that is not gzip under grpc-encoding gzip", wire: "grpc", body: grpcFrame(Buffer.from(SECRET), 1), headers: { "grpc-encoding": "gzip" }, envelope: REQUEST_FORMAT, code: Code.InvalidArgument },
  { name: "gRPC+json: a string where tags wants a list", wire: "grpc", json: true, body: grpcFrame(json({ tags: SECRET })), envelope: "field=tags hint=format: tags must be a list of strings", code: Code.InvalidArgument },
  { name: "gRPC-Web: a length running past the end", wire: "grpc-web", body: grpcFrame(bytes(tag(num("query"), 2), 0x05, 0x61)), envelope: "field=query hint=format: query must be a string", code: Code.InvalidArgument },
  { name: "gRPC-Web: an illegal tag", wire: "grpc-web", body: grpcFrame(bytes(0x07)), envelope: REQUEST_FORMAT, code: Code.InvalidArgument },

  // The request limit, on the wire and after decompression.
  { name: "a declared body over the limit", wire: "connect-json", body: json({ query: "x".repeat(70_000) }), envelope: TOO_LARGE(70_012), code: Code.InvalidArgument },
  { name: "a gzip body that expands past the limit", wire: "connect-json", body: bomb, headers: { "content-encoding": "gzip" }, envelope: TOO_LARGE_SOME, code: Code.InvalidArgument },
  { name: "gRPC: a frame over the limit", wire: "grpc", body: grpcFrame(Buffer.alloc(70_000)), envelope: TOO_LARGE_SOME, code: Code.InvalidArgument },
  { name: "gRPC: a gzip frame that expands past the limit", wire: "grpc", body: grpcFrame(gzipSync(Buffer.alloc(2_000_000)), 1), headers: { "grpc-encoding": "gzip" }, envelope: TOO_LARGE_SOME, code: Code.InvalidArgument },
  { name: "gRPC-Web: a declared body over the limit", wire: "grpc-web", body: grpcFrame(Buffer.alloc(70_000)), envelope: TOO_LARGE(70_005), code: Code.InvalidArgument },

  // Headers the library would otherwise quote back.
  { name: "an encoding the server does not know", wire: "connect-json", body: json({ query: "q" }), headers: { "content-encoding": SECRET }, envelope: "field=request hint=enum: the request encoding must be one of identity|gzip|br", code: Code.InvalidArgument },
  { name: "gRPC: an encoding the server does not know", wire: "grpc", body: grpcFrame(json({})), headers: { "grpc-encoding": SECRET }, envelope: "field=request hint=enum: the request encoding must be one of identity|gzip|br", code: Code.InvalidArgument },
  { name: "a connect-timeout-ms that is not a number", wire: "connect-json", body: json({ query: "q" }), headers: { "connect-timeout-ms": SECRET }, envelope: "field=request hint=format: the connect-timeout-ms header must be a valid timeout", code: Code.InvalidArgument },
  { name: "gRPC: a grpc-timeout that is not a timeout", wire: "grpc", body: grpcFrame(Buffer.alloc(0)), headers: { "grpc-timeout": SECRET }, envelope: "field=request hint=format: the grpc-timeout header must be a valid timeout", code: Code.InvalidArgument },
];

function expectRow(row: Row, a: { code: Code | undefined; message: string; raw: string }): void {
  expect(a.code === undefined ? "ok" : Code[a.code]).toBe(Code[row.code]);
  if (typeof row.envelope === "string") expect(a.message).toBe(row.envelope);
  else {
    const m = row.envelope.exec(a.message);
    expect(m, a.message).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(MAX);
  }
  expect(parse(a.message).kind).toBe("envelope");
  expect(exitForConnectCode(row.code)).toBe(EXIT.usage);
  expect(a.raw).not.toContain(SECRET);
}

describe("requests that never reach the core", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_MAX_REQUEST_BYTES: String(MAX) } });
  });
  afterAll(async () => server?.close());

  it("has unique row names", () => {
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
  });

  it.each(ROWS.map((r) => [r.name, r] as const))("%s: the exact envelope, invalid_argument, exit 2, nothing echoed", async (_n, row) => {
    const a = await rawCall(server.url, row.wire, row.procedure ?? "SearchMemories", row.body, { headers: row.headers, json: row.json });
    expectRow(row, a);
  });

  it("never logs a planted value", () => {
    expect(server.log.text()).not.toContain(SECRET);
  });

  it("still serves a well-formed request in every protocol", async () => {
    const ok = Buffer.from(JSON.stringify({ query: "hello", crossSpine: true }));
    expect((await rawCall(server.url, "connect-json", "SearchMemories", ok)).code).toBeUndefined();
    expect((await rawCall(server.url, "grpc", "SearchMemories", grpcFrame(ok), { json: true })).code).toBeUndefined();
    expect((await rawCall(server.url, "grpc-web", "SearchMemories", grpcFrame(ok), { json: true })).code).toBeUndefined();
    const gz = await rawCall(server.url, "connect-json", "SearchMemories", gzipSync(ok), { headers: { "content-encoding": "gzip" } });
    expect(gz.code).toBeUndefined();
  });
});

/**
 * One raw HTTP/1.1 exchange, so a request can carry a header twice. The
 * socket stays open until the server closes it (`connection: close`): a
 * half-close right after the body would let Node's server drop a request
 * whose answer needs a store round trip (Qdrant) before it is written.
 */
function rawHttp(port: number, head: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1", () => s.write(head + `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n` + body));
    let out = "";
    s.setEncoding("utf8").on("data", (d: string) => (out += d));
    s.on("end", () => resolve(out));
    s.on("error", reject);
  });
}

describe("the bearer check comes first", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: "alice=tok-alice,bob=tok-bob", ENGRAM_MAX_REQUEST_BYTES: String(MAX) } });
  });
  afterAll(async () => server?.close());

  const UNAUTH = "a valid bearer token is required";

  it.each<[string, Wire, Uint8Array]>([
    ["Connect JSON garbage", "connect-json", Buffer.from(SECRET)],
    ["Connect binary garbage", "connect-proto", bytes(0x07)],
    ["a gRPC frame over the limit", "grpc", grpcFrame(Buffer.alloc(70_000))],
    ["a gRPC-Web frame holding garbage", "grpc-web", grpcFrame(bytes(0x07))],
    ["a declared body over the limit", "connect-json", json({ query: "x".repeat(70_000) })],
  ])("without a token, %s is unauthenticated, not a decode or limit envelope", async (_n, wire, body) => {
    const a = await rawCall(server.url, wire, "SearchMemories", body);
    expect(Code[a.code!]).toBe("Unauthenticated");
    expect(a.message).toBe(UNAUTH);
    expect(exitForConnectCode(a.code!)).toBe(EXIT.auth);
    expect(a.raw).not.toContain(SECRET);
  });

  it("with a token, the same garbage is the decode envelope", async () => {
    const a = await rawCall(server.url, "connect-proto", "SearchMemories", bytes(0x07), { headers: { authorization: "Bearer tok-alice" } });
    expect(a.message).toBe(REQUEST_FORMAT);
  });

  it.each([
    ["the right one first", "tok-alice", "wrong"],
    ["the right one second", "wrong", "tok-alice"],
    ["both right, for two owners", "tok-alice", "tok-bob"],
  ])("two Authorization headers are unauthenticated (%s)", async (_n, first, second) => {
    const port = new URL(server.url).port;
    const body = JSON.stringify({ query: "q", crossSpine: true });
    const out = await rawHttp(
      Number(port),
      `POST /engram.v1.EngramService/SearchMemories HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\nauthorization: Bearer ${first}\r\nauthorization: Bearer ${second}\r\n`,
      body,
    );
    expect(out.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
    expect(out).toContain(`"code":"unauthenticated","message":"${UNAUTH}"`);
  });

  it("one right Authorization header still passes the same raw path", async () => {
    const port = new URL(server.url).port;
    const out = await rawHttp(
      Number(port),
      `POST /engram.v1.EngramService/SearchMemories HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\nauthorization: Bearer tok-alice\r\n`,
      JSON.stringify({ query: "q", crossSpine: true }),
    );
    expect(out.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
  });

  it("two Authorization headers on /mcp are refused too", async () => {
    const port = new URL(server.url).port;
    const out = await rawHttp(
      Number(port),
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nauthorization: Bearer tok-alice\r\nauthorization: Bearer tok-bob\r\n`,
      "{}",
    );
    expect(out.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
  });
});

describe("the CLI paths to these envelopes", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_MAX_REQUEST_BYTES: String(MAX) } });
  });
  afterAll(async () => server?.close());
  const RECORD = ["--source", "user-said", "--category", "convention", "--scope", "cli-limit"];

  it("a store over the request limit exits 2 with the request too_long envelope", async () => {
    const r = await runEngram(["store", "--content", "x".repeat(70_000), ...RECORD, "--server", server.url]);
    expect(r.code).toBe(EXIT.usage);
    const line = r.stderr.trim().split("\n").find((l) => l.includes("hint="))!;
    const m = TOO_LARGE_SOME.exec(line);
    expect(m, r.stderr).not.toBeNull();
  });

  it("a schedule with a --not-before that is not RFC3339 exits 2 with the same envelope as before the Timestamp change", async () => {
    const r = await runEngram(["schedule", "--content", "c", ...RECORD, "--not-before", SECRET, "--server", server.url]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain("field=not_before hint=format: not_before must be RFC3339");
    expect(r.stderr).not.toContain(SECRET);
  });
});
