/**
 * A seeded fuzz over the four wires: Connect JSON, Connect binary, gRPC and
 * gRPC-Web. A fixed number of requests built from the input schemas (right
 * fields with wrong values, wrong fields, truncations, flipped bytes, bare
 * garbage, broken frames), each carrying a planted value. Every answer must
 * be a success or a rejection in the vocabulary (an envelope with a known
 * hint, or a documented sentinel), never `internal`, and never echo the
 * planted value in an error or a log line. The server must be alive at the
 * end. The run is bounded by its count, not by a clock.
 */
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, SENTINEL_TABLE } from "../src/argerror/index.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { grpcFrame, rawCall, type RawAnswer, type Wire } from "./helpers/raw-rpc.js";

const SEED = 0x5eed_0010;
const PER_WIRE: Record<Wire, number> = { "connect-json": 1200, "connect-proto": 1200, grpc: 400, "grpc-web": 400 };
const SECRET = "PLANTED-d41d8cd9";
/** Fields the contract echoes on purpose (`not found: <ids as sent>`): never planted. */
const ECHOED = new Set(["id", "ids", "supersedes"]);

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const methods = EngramService.methods.filter((m) => m.methodKind === "unary");

function generator(rand: () => number) {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const int = (n: number) => Math.floor(rand() * n);
  const planted = () => pick([SECRET, `${SECRET} ${"x".repeat(int(3000))}`, `a\n${SECRET}`, `${"é".repeat(int(40))}${SECRET}`]);
  const neutral = () => pick(["", "abc", "0123456789", "x".repeat(int(300)), "repo:demo"]);

  const jsonValue = (depth: number, name = ""): unknown => {
    const s = () => (ECHOED.has(name) ? neutral() : planted());
    switch (int(depth > 2 ? 7 : 10)) {
      case 0: return s();
      case 1: return int(2) ? -int(1e9) : int(1e12);
      case 2: return rand() * 1e6;
      case 3: return rand() < 0.5;
      case 4: return null;
      case 5: return [s(), int(100)];
      case 6: return Array.from({ length: int(5) }, () => s());
      case 7: return { [s()]: s(), kind: s(), ref: s() };
      case 8: return [jsonValue(depth + 1, name)];
      default: return { nested: jsonValue(depth + 1, name) };
    }
  };

  const jsonBody = (desc: DescMessage): Buffer => {
    const r = int(20);
    if (r === 0) return Buffer.from(planted());
    if (r === 1) return Buffer.from(JSON.stringify([planted()]));
    if (r === 2) return Buffer.from(JSON.stringify({ query: planted() }).slice(0, int(30)));
    const obj: Record<string, unknown> = {};
    for (let i = int(5); i >= 0 && desc.fields.length > 0; i--) {
      const f = pick(desc.fields);
      const key = int(4) === 0 ? f.name : f.jsonName;
      obj[int(15) === 0 ? planted() : key] = jsonValue(0, f.name);
    }
    return Buffer.from(JSON.stringify(obj));
  };

  const validBinary = (desc: DescMessage): Uint8Array => {
    const init: Record<string, unknown> = {};
    for (const f of desc.fields) {
      if (int(2) === 0) continue;
      if (f.fieldKind === "scalar" && f.scalar === 9) init[f.localName] = ECHOED.has(f.name) ? neutral() : planted();
      if (f.fieldKind === "list" && f.listKind === "scalar" && f.scalar === 9) init[f.localName] = [ECHOED.has(f.name) ? neutral() : planted()];
    }
    return toBinary(desc, create(desc, init as never));
  };

  const binaryBody = (desc: DescMessage): Uint8Array => {
    const base = Buffer.from(validBinary(desc));
    switch (int(5)) {
      case 0: return Uint8Array.from({ length: int(64) }, () => int(256));
      case 1: return base.subarray(0, int(base.length + 1));
      case 2: {
        const b = Buffer.from(base);
        for (let i = int(4) + 1; i > 0 && b.length > 0; i--) b[int(b.length)] = int(256);
        return b;
      }
      case 3: return Buffer.concat([base, Uint8Array.from({ length: int(16) }, () => int(256))]);
      default: return Buffer.concat([Buffer.from([0x0a | (int(30) << 3), 0xff, 0xff, 0xff, 0xff, 0x0f]), Buffer.from(SECRET)]);
    }
  };

  const frameBody = (desc: DescMessage, json: boolean): Uint8Array => {
    const msg = json ? jsonBody(desc) : binaryBody(desc);
    switch (int(6)) {
      case 0: return grpcFrame(msg, 1);
      case 1: return grpcFrame(msg).subarray(0, int(msg.length + 5));
      case 2: return Buffer.concat([grpcFrame(msg), grpcFrame(msg)]);
      case 3: return grpcFrame(msg, int(256));
      default: return grpcFrame(msg);
    }
  };
  return { pick, int, jsonBody, binaryBody, frameBody };
}

/** A rejection in the vocabulary: an envelope with a known hint, or a sentinel's fixed prefix. */
function inVocabulary(a: RawAnswer): boolean {
  if (a.code === undefined) return true;
  if (a.code === Code.Internal) return false;
  if (parse(a.message).kind === "envelope") return true;
  return Object.values(SENTINEL_TABLE).some((s) => a.message.startsWith(s.prefix));
}

describe("a seeded fuzz over Connect JSON, Connect binary, gRPC and gRPC-Web", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_MAX_REQUEST_BYTES: String(64 * 1024) } });
  });
  afterAll(async () => server?.close());

  it.each(Object.entries(PER_WIRE) as Array<[Wire, number]>)("%s: %i requests, all in the vocabulary, none internal, nothing echoed", async (wire, count) => {
    const g = generator(mulberry32(SEED ^ wire.length ^ count));
    const outside: string[] = [];
    const echoed: string[] = [];
    const codes = new Map<string, number>();
    for (let i = 0; i < count; i += 8) {
      const batch = Array.from({ length: Math.min(8, count - i) }, async () => {
        const m = g.pick(methods);
        const json = wire === "connect-json" || ((wire === "grpc" || wire === "grpc-web") && g.int(2) === 0);
        const body = wire === "connect-json" ? g.jsonBody(m.input) : wire === "connect-proto" ? g.binaryBody(m.input) : g.frameBody(m.input, json);
        const a = await rawCall(server.url, wire, m.name, body, { json });
        const key = a.code === undefined ? "ok" : Code[a.code];
        codes.set(key!, (codes.get(key!) ?? 0) + 1);
        if (!inVocabulary(a)) outside.push(`${m.name}: ${key} ${a.message.slice(0, 120)}`);
        if (a.code !== undefined && a.raw.includes(SECRET)) echoed.push(`${m.name}: ${a.message.slice(0, 120)}`);
      });
      await Promise.all(batch);
    }
    expect(outside).toEqual([]);
    expect(echoed).toEqual([]);
    expect([...codes.values()].reduce((x, y) => x + y, 0)).toBe(count);
    // The fuzz reached the decode path, not only the core.
    expect(codes.get("InvalidArgument") ?? 0).toBeGreaterThan(count / 4);
  });

  it("logged no planted value and is still alive", async () => {
    expect(server.log.text()).not.toContain(SECRET);
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
  });
});
