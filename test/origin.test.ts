/**
 * Who may talk to the server at all: a browser page from another origin
 * (DNS rebinding included) is refused on every route with a bare 403; the
 * CLI, SDKs and MCP clients, which send no Origin, are not affected.
 */
import http from "node:http";
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowedOriginsFromEnv } from "../src/server/index.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

const CONNECT = "/engram.v1.EngramService/ListScopes";
const INIT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } } });

type Answer = { status: number; body: string };

/** node:http, so Host and Origin can be set to anything. */
function call(url: string, path: string, headers: Record<string, string>, method = "POST", body = "{}"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method, headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(method === "GET" ? undefined : body);
  });
}

const ROUTES: Array<[string, string, string, string]> = [
  ["Connect", CONNECT, "POST", "{}"],
  ["MCP initialize", "/mcp", "POST", INIT],
  ["health", "/healthz", "GET", ""],
];

describe("the Origin check", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_ALLOWED_ORIGINS: "https://app.example, http://localhost:5173" } });
  });
  afterAll(async () => server?.close());

  it.each(ROUTES)("refuses %s from Origin http://evil.example with a bare 403", async (_n, path, method, body) => {
    const a = await call(server.url, path, { origin: "http://evil.example" }, method, body);
    expect(a).toEqual({ status: 403, body: "" });
  });

  it.each(ROUTES)("refuses %s from Origin null (a sandboxed page)", async (_n, path, method, body) => {
    expect((await call(server.url, path, { origin: "null" }, method, body)).status).toBe(403);
  });

  it.each(ROUTES)("lets %s through without an Origin", async (_n, path, method, body) => {
    expect((await call(server.url, path, {}, method, body)).status).toBe(200);
  });

  it.each(ROUTES)("lets %s through from a configured origin", async (_n, path, method, body) => {
    expect((await call(server.url, path, { origin: "https://app.example" }, method, body)).status).toBe(200);
    expect((await call(server.url, path, { origin: "http://localhost:5173" }, method, body)).status).toBe(200);
  });

  it("lets the server's own origin through", async () => {
    expect((await call(server.url, CONNECT, { origin: server.url })).status).toBe(200);
    const port = new URL(server.url).port;
    expect((await call(server.url, CONNECT, { origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it("does not take a configured origin's scheme or port as optional", async () => {
    expect((await call(server.url, CONNECT, { origin: "http://app.example" })).status).toBe(403);
    expect((await call(server.url, CONNECT, { origin: "http://localhost:5174" })).status).toBe(403);
  });

  it("refuses an evil Origin over HTTP/2 too", async () => {
    const session = http2.connect(server.url);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const s = session.request({ ":method": "POST", ":path": CONNECT, "content-type": "application/json", origin: "http://evil.example" });
        s.on("response", (h) => resolve(Number(h[":status"])));
        s.on("error", reject);
        s.end("{}");
      });
      expect(status).toBe(403);
    } finally {
      session.close();
    }
  });
});

describe("the Host check on a loopback bind", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it.each(ROUTES)("refuses %s addressed to a rebinding name (Host evil.example)", async (_n, path, method, body) => {
    const port = new URL(server.url).port;
    const a = await call(server.url, path, { host: `evil.example:${port}` }, method, body);
    expect(a).toEqual({ status: 403, body: "" });
  });

  it.each(["localhost", "127.0.0.1", "[::1]", "LOCALHOST"])("accepts Host %s with the port", async (name) => {
    const port = new URL(server.url).port;
    expect((await call(server.url, CONNECT, { host: `${name}:${port}` })).status).toBe(200);
  });

  it("refuses a Host that only starts with a loopback name", async () => {
    expect((await call(server.url, CONNECT, { host: "localhost.evil.example" })).status).toBe(403);
    expect((await call(server.url, CONNECT, { host: "127.0.0.1.nip.io" })).status).toBe(403);
  });
});

describe("ENGRAM_ALLOWED_ORIGINS", () => {
  it("normalises entries as a browser serialises an origin", () => {
    expect(allowedOriginsFromEnv({ ENGRAM_ALLOWED_ORIGINS: " HTTPS://App.Example:443 ,http://x.example:8080" })).toEqual(["https://app.example", "http://x.example:8080"]);
  });

  it("fails startup on an entry that is not an origin, naming its position only", () => {
    expect(() => allowedOriginsFromEnv({ ENGRAM_ALLOWED_ORIGINS: "https://ok.example,https://bad.example/path" })).toThrow(
      "ENGRAM_ALLOWED_ORIGINS: entry 2 must be an http(s) origin such as https://app.example",
    );
    expect(() => allowedOriginsFromEnv({ ENGRAM_ALLOWED_ORIGINS: "*" })).toThrow(/entry 1/);
  });
});
