/**
 * Issue 24, the Connect side, for what the server answers whatever the body
 * held: a record never summarized carries no `summaryModel` in JSON; a
 * foreign Origin gets the bare 403 the docs promise; a path no route serves
 * is a 404 that challenges no one; and docs/operations.md quotes what
 * `buf curl` really prints without `--reflect-header`. Each against a real
 * server on a loopback port, and the planted Origin must come back in no log
 * line. How a request body is read is connect-request-bodies.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import type { RunningEngram } from "./fixtures/mcp-harness.js";
import { rawCall } from "./helpers/raw-rpc.js";
import { AUTH, PLANT, TOKEN, WRITE, jsonBody, startEdgesServer } from "./helpers/planted-value-server.js";

let srv: RunningEngram;

beforeAll(async () => {
  srv = await startEdgesServer();
});
afterAll(async () => srv?.close());

describe("summary_model for a record never summarized (issue 24 item 10)", () => {
  let id = "";
  beforeAll(async () => {
    id = (await srv.connect(TOKEN).storeMemory({ ...WRITE, content: "never summarized", tags: ["sm"] })).id;
  });

  const memoriesOf = (raw: string): Record<string, unknown>[] => {
    // rawCall's raw is the headers as JSON (one flat object), then the body.
    const body = JSON.parse(raw.slice(raw.indexOf("}") + 1)) as Record<string, unknown>;
    const one = body.memory as Record<string, unknown> | undefined;
    return one ? [one] : ((body.memories as Record<string, unknown>[] | undefined) ?? []);
  };

  it.each([
    ["GetMemory", () => ({ id })],
    ["ListMemories", () => ({ scope: "project:edges", full: true })],
    ["SearchMemories", () => ({ query: "never summarized", scope: "project:edges", full: true })],
  ] as const)("Connect JSON leaves the key out: %s", async (label, body) => {
    const a = await rawCall(srv.url, "connect-json", label, jsonBody(body(), false), { headers: AUTH });
    expect(a.status).toBe(200);
    const rows = memoriesOf(a.raw);
    expect(rows.length).toBeGreaterThan(0);
    for (const m of rows) {
      expect(m).not.toHaveProperty("summaryModel");
      expect(m).toHaveProperty("schemaVersion");
    }
  });

  // GetMemory's binary answer encodes a stored version once and reuses the bytes on later reads.
  it("binary answers leave the field unset, on the first read and on the cached one", async () => {
    const bearer: Interceptor = (next) => (req) => {
      req.header.set("authorization", AUTH.authorization);
      return next(req);
    };
    const binary = createClient(EngramService, createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1", useBinaryFormat: true, interceptors: [bearer] }));
    for (let i = 0; i < 2; i++) {
      const m = (await binary.getMemory({ id })).memory!;
      expect(m.id).toBe(id);
      expect(m.summaryModel).toBeUndefined();
      expect(m.schemaVersion).toBeDefined();
    }
  });
});

describe("a foreign Origin gets a bare 403 (issue 24 item 9)", () => {
  const ORIGIN = `http://${PLANT.toLowerCase()}.example`;
  const INIT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  const ORIGIN_ROWS: Array<{ route: string; path: string; method: string; type?: string; body?: string }> = [
    { route: "Connect JSON", path: "/engram.v1.EngramService/ListScopes", method: "POST", type: "application/json", body: "{}" },
    { route: "gRPC-Web", path: "/engram.v1.EngramService/ListScopes", method: "POST", type: "application/grpc-web+proto", body: "\0\0\0\0\0" },
    { route: "MCP", path: "/mcp", method: "POST", type: "application/json", body: INIT },
    { route: "the liveness probe", path: "/healthz", method: "GET" },
    { route: "the readiness probe", path: "/readyz", method: "GET" },
    { route: "metrics", path: "/metrics", method: "GET" },
  ];

  it.each(ORIGIN_ROWS)("$route: status 403, an empty body, no content type", async (row) => {
    const a = await new Promise<{ status: number; type: string | undefined; body: string }>((done, fail) => {
      const headers: Record<string, string> = { ...AUTH, origin: ORIGIN, accept: "application/json, text/event-stream" };
      if (row.type) headers["content-type"] = row.type;
      const req = http.request(`${srv.url}${row.path}`, { method: row.method, headers }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (d: string) => (body += d));
        res.on("end", () => done({ status: res.statusCode ?? 0, type: res.headers["content-type"], body }));
      });
      req.on("error", fail);
      req.end(row.body);
    });
    expect(a).toEqual({ status: 403, type: undefined, body: "" });
  });

  it("logs no trace of the refused Origin", () => {
    expect(srv.log.text().toLowerCase()).not.toContain(PLANT.toLowerCase());
  });
});

describe("a path no route serves", () => {
  it.each([
    { caller: "without a bearer", headers: {} as Record<string, string> },
    { caller: "with a refused bearer", headers: { authorization: "Bearer not-a-token" } as Record<string, string> },
    { caller: "with a good bearer", headers: AUTH },
  ])("is 404 with no challenge, $caller: a challenge is for a 401 only", async ({ headers }) => {
    const a = await new Promise<{ status: number; challenge: unknown }>((done, fail) => {
      const req = http.request(`${srv.url}/engram.v1.EngramService/NoSuchMethod`, { method: "POST", headers: { ...headers, "content-type": "application/json" } }, (res) => {
        res.resume().on("end", () => done({ status: res.statusCode ?? 0, challenge: res.headers["www-authenticate"] }));
      });
      req.on("error", fail);
      req.end("{}");
    });
    expect(a).toEqual({ status: 404, challenge: undefined });
  });
});

/** Somewhere with no buf.yaml: buf can learn the schema only by reflection. */
const ELSEWHERE = mkdtempSync(join(tmpdir(), "engram-edges-bufcurl-"));
afterAll(() => rmSync(ELSEWHERE, { recursive: true, force: true }));

async function bufCurl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(resolve("node_modules/.bin/buf"), ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args], { cwd: ELSEWHERE, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

// The store plays no part here, so one project runs it.
describe.skipIf(process.env.ENGRAM_TEST_STORE === "qdrant-fake")("buf curl without --reflect-header, as docs/operations.md quotes it (issue 24 item 9)", () => {
  const doc = readFileSync(resolve("docs/operations.md"), "utf8").replace(/\s+/g, " ");
  const rows = [
    {
      call: "the documented SearchMemories call",
      args: () => ["-H", `Authorization: Bearer ${TOKEN}`, "-d", '{"query":"which database","scope":"repo:demo"}', `${srv.url}/engram.v1.EngramService/SearchMemories`],
      prints: 'Failure: failed to find service named "engram.v1.EngramService" in schema',
    },
    {
      call: "--list-services",
      args: () => ["-H", `Authorization: Bearer ${TOKEN}`, "--list-services", srv.url],
      prints: "you are not authenticated. Set the BUF_TOKEN environment variable",
    },
  ];

  it.each(rows)("$call: exits 1 and prints what the doc says", async (row) => {
    expect(doc).toContain(row.prints);
    const r = await bufCurl(row.args());
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
    expect(r.stderr).toContain(row.prints);
  });
});
