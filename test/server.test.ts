import { execFile } from "node:child_process";
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { Code, ConnectError, createClient, type Client, type Transport } from "@connectrpc/connect";
import {
  Http2SessionManager,
  connectNodeAdapter,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { TokenAuth, parseTokenSpec, subjectOf } from "../src/auth/index.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { parseListenAddr, startServer, type Handler } from "../src/server/index.js";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const bufBin = join(repoRoot, "node_modules", ".bin", "buf");
const LIST_SCOPES = "/engram.v1.EngramService/ListScopes";

/** A stand-in Connect handler: the real adapter, a fixed implementation. */
function standInConnect(): Handler {
  return connectNodeAdapter({
    routes: (router) => {
      router.service(EngramService, {
        listScopes() {
          return { scopes: [{ scope: "project/engram", count: 3n }], approximate: false };
        },
        getMemory() {
          throw new ConnectError("not found: x", Code.NotFound);
        },
      });
    },
  });
}

/** A stand-in MCP handler that reports the subject the listener attached. */
// Reads the whole request before answering, as the real MCP transport does:
// an HTTP/2 answer that ends the stream while the client is still sending
// its body races the client's DATA frames (curl then reports error 92).
const standInMcp: Handler = (req, res) => {
  const subject = subjectOf(req);
  const body = JSON.stringify({ owner: subject?.owner ?? null, anonymous: subject?.anonymous ?? null });
  req.resume();
  req.on("end", () => {
    (res as http.ServerResponse).writeHead(200, { "content-type": "application/json" });
    res.end(body);
  });
};

const silentLog = (): void => {};

type Started = Awaited<ReturnType<typeof startServer>>;

/** Forwards a connection, dribbling the first `n` client bytes one at a time. */
async function startDribbleProxy(target: { host: string; port: number }, n: number) {
  const open = new Set<net.Socket>();
  const server = net.createServer((down) => {
    const up = net.connect(target.port, target.host);
    for (const s of [up, down]) {
      open.add(s);
      s.once("close", () => open.delete(s));
    }
    up.setNoDelay(true);
    up.on("error", () => down.destroy());
    down.on("error", () => up.destroy());
    let sent = 0;
    let chain = Promise.resolve();
    down.on("data", (chunk: Buffer) => {
      chain = chain.then(async () => {
        let i = 0;
        while (i < chunk.length && sent < n) {
          up.write(chunk.subarray(i, i + 1));
          i++;
          sent++;
          await new Promise((r) => setTimeout(r, 4));
        }
        if (i < chunk.length) up.write(chunk.subarray(i));
      });
    });
    down.on("end", () => void chain.then(() => up.end()));
    up.pipe(down);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of open) s.destroy();
      }),
  };
}

describe("the single listener", () => {
  let server: Started;
  const managers: Http2SessionManager[] = [];
  const logged: Record<string, unknown>[] = [];

  beforeAll(async () => {
    server = await startServer({
      listenAddr: "127.0.0.1:0",
      connect: standInConnect(),
      mcp: standInMcp,
      auth: new TokenAuth(parseTokenSpec("alice=tok-alice-1,bob=tok-bob-2,carol=tok-carol-3")),
      log: (line) => void logged.push(line as Record<string, unknown>),
    });
  });

  afterAll(async () => {
    for (const m of managers) m.abort();
    await server?.close();
  });

  const transports: Array<[string, () => Transport]> = [
    ["a Connect client over HTTP/1.1", () => createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" })],
    [
      "a Connect client over HTTP/2",
      () => {
        const sessionManager = new Http2SessionManager(server.url);
        managers.push(sessionManager);
        return createConnectTransport({ baseUrl: server.url, httpVersion: "2", sessionManager });
      },
    ],
    [
      "a gRPC client",
      () => {
        const sessionManager = new Http2SessionManager(server.url);
        managers.push(sessionManager);
        return createGrpcTransport({ baseUrl: server.url, sessionManager });
      },
    ],
    ["a gRPC-Web client over HTTP/1.1", () => createGrpcWebTransport({ baseUrl: server.url, httpVersion: "1.1" })],
  ];

  it("reports its url, host and the port the kernel picked", () => {
    expect(server.host).toBe("127.0.0.1");
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });

  describe.each(transports)("on one port, %s", (_name, makeTransport) => {
    let client: Client<typeof EngramService>;
    beforeAll(() => {
      client = createClient(EngramService, makeTransport());
    });

    it("gets the same ListScopes response", async () => {
      const res = await client.listScopes({});
      expect(res.scopes.map((s) => [s.scope, s.count])).toEqual([["project/engram", 3n]]);
      expect(res.approximate).toBe(false);
    });

    it("gets the same not_found code and raw message from GetMemory", async () => {
      const err = await client.getMemory({ id: "x" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConnectError);
      expect((err as ConnectError).code).toBe(Code.NotFound);
      expect((err as ConnectError).rawMessage).toBe("not found: x");
    });
  });

  it("answers plain curl with JSON over HTTP/1.1", async () => {
    const { stdout } = await run("curl", [
      "-sS", "-X", "POST", "-H", "Content-Type: application/json", "-d", "{}", `${server.url}${LIST_SCOPES}`,
    ]);
    expect(JSON.parse(stdout)).toEqual({ scopes: [{ scope: "project/engram", count: "3" }] });
  });

  it("answers curl with HTTP/2 prior knowledge", async () => {
    const { stdout } = await run("curl", [
      "-sS", "--http2-prior-knowledge", "-w", "\\n%{http_version}", "-X", "POST",
      "-H", "Content-Type: application/json", "-d", "{}", `${server.url}${LIST_SCOPES}`,
    ]);
    const [body, version] = stdout.split("\n");
    expect(version).toBe("2");
    expect(JSON.parse(body ?? "")).toEqual({ scopes: [{ scope: "project/engram", count: "3" }] });
  });

  it("answers GET /healthz with 200 and a JSON status over both protocols", async () => {
    for (const extra of [[], ["--http2-prior-knowledge"]]) {
      const { stdout } = await run("curl", [
        "-sS", ...extra, "-w", "\\n%{http_code} %{content_type}", `${server.url}/healthz`,
      ]);
      const [body, meta] = stdout.split("\n");
      expect(JSON.parse(body ?? "")).toEqual({ status: "ok" });
      expect(meta).toBe("200 application/json");
    }
  });

  it("lets the Connect handler answer 404 for unknown paths", async () => {
    const { stdout } = await run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", `${server.url}/nope`]);
    expect(stdout).toBe("404");
  });

  it("answers buf curl over gRPC with HTTP/2 prior knowledge", async () => {
    const { stdout } = await run(
      bufBin,
      ["curl", "--schema", "proto", "--protocol", "grpc", "--http2-prior-knowledge", "-d", "{}", `${server.url}${LIST_SCOPES}`],
      { cwd: repoRoot },
    );
    expect(JSON.parse(stdout)).toEqual({ scopes: [{ scope: "project/engram", count: "3" }] });
  });

  it("answers buf curl over the Connect protocol", async () => {
    const { stdout } = await run(
      bufBin,
      ["curl", "--schema", "proto", "--protocol", "connect", "-d", "{}", `${server.url}${LIST_SCOPES}`],
      { cwd: repoRoot },
    );
    expect(JSON.parse(stdout)).toEqual({ scopes: [{ scope: "project/engram", count: "3" }] });
  });

  it("still picks the right protocol when the first bytes arrive one at a time", async () => {
    const proxy = await startDribbleProxy({ host: server.host, port: server.port }, 30);
    try {
      // "P" of POST is also the first byte of the HTTP/2 preface: undecided
      // until the second byte, then HTTP/1.1.
      const h1 = await run("curl", [
        "-sS", "-X", "POST", "-H", "Content-Type: application/json", "-d", "{}", `${proxy.url}${LIST_SCOPES}`,
      ]);
      expect(JSON.parse(h1.stdout)).toEqual({ scopes: [{ scope: "project/engram", count: "3" }] });

      const h2 = await run("curl", [
        "-sS", "--http2-prior-knowledge", "-X", "POST", "-H", "Content-Type: application/json", "-d", "{}",
        `${proxy.url}${LIST_SCOPES}`,
      ]);
      expect(JSON.parse(h2.stdout)).toEqual({ scopes: [{ scope: "project/engram", count: "3" }] });
    } finally {
      await proxy.close();
    }
  });

  describe("the MCP route with auth on", () => {
    async function mcpCall(extra: string[], prior: boolean) {
      const { stdout } = await run("curl", [
        "-sS", ...(prior ? ["--http2-prior-knowledge"] : []), "-X", "POST", "-D", "-",
        "-H", "Content-Type: application/json", ...extra, "-d", "{}", `${server.url}/mcp`,
      ]);
      const split = stdout.indexOf("\r\n\r\n");
      const head = stdout.slice(0, split).toLowerCase();
      const status = Number(head.split(" ")[1]);
      return { status, head, body: stdout.slice(split + 4) };
    }

    it.each([false, true])("refuses a request without a bearer with 401 (HTTP/2: %s)", async (prior) => {
      const r = await mcpCall([], prior);
      expect(r.status).toBe(401);
      expect(r.head).toContain('www-authenticate: bearer realm="engram"');
      expect(JSON.parse(r.body)).toEqual({ code: "unauthenticated", message: "a valid bearer token is required" });
    });

    it.each([false, true])("refuses a wrong token with 401 (HTTP/2: %s)", async (prior) => {
      const r = await mcpCall(["-H", "Authorization: Bearer tok-alice-2"], prior);
      expect(r.status).toBe(401);
      expect(JSON.parse(r.body)).toEqual({ code: "unauthenticated", message: "a valid bearer token is required" });
    });

    it("logs a refused MCP caller at info, as the caller's problem, naming the credential's lane and never the token", async () => {
      const from = logged.length;
      await mcpCall(["-H", "Authorization: Bearer tok-alice-2"], false);
      const lines = logged.slice(from).filter((l) => String(l.msg).startsWith("mcp request rejected"));
      expect(lines).toEqual([{ level: "info", msg: "mcp request rejected: missing or invalid bearer token", path: "/mcp", credential: "static", failure: "invalid" }]);
      expect(JSON.stringify(logged)).not.toContain("tok-alice-2");
    });

    it.each([false, true])("hands a right token's owner to the MCP handler (HTTP/2: %s)", async (prior) => {
      const r = await mcpCall(["-H", "Authorization: bearer tok-bob-2"], prior);
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toEqual({ owner: "bob", anonymous: false });
    });
  });
});

describe("the MCP route in anonymous mode", () => {
  it("passes every request through as the anonymous subject", async () => {
    const server = await startServer({
      listenAddr: "127.0.0.1:0",
      connect: standInConnect(),
      mcp: standInMcp,
      mcpPath: "/agents/mcp",
      auth: new TokenAuth(),
      log: silentLog,
    });
    try {
      const { stdout } = await run("curl", ["-sS", "-X", "POST", "-d", "{}", `${server.url}/agents/mcp`]);
      expect(JSON.parse(stdout)).toEqual({ owner: "", anonymous: true });
      const other = await run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", `${server.url}/mcp`]);
      expect(other.stdout).toBe("404");
    } finally {
      await server.close();
    }
  });
});

describe("startServer on IPv6 loopback", () => {
  it("brackets the host in its url", async () => {
    let server: Started;
    try {
      server = await startServer({ listenAddr: "[::1]:0", connect: standInConnect(), auth: new TokenAuth(), log: silentLog });
    } catch (err) {
      // Some sandboxes have no IPv6 loopback; nothing to test there.
      if ((err as NodeJS.ErrnoException).code === "EADDRNOTAVAIL") return;
      throw err;
    }
    try {
      expect(server.url).toBe(`http://[::1]:${server.port}`);
      const client = createClient(EngramService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));
      expect((await client.listScopes({})).scopes).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe("close()", () => {
  it("resolves promptly with an open keep-alive HTTP/1.1 connection and an open HTTP/2 session", async () => {
    const server = await startServer({
      listenAddr: "127.0.0.1:0",
      connect: standInConnect(),
      auth: new TokenAuth(),
      log: silentLog,
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const h1Socket = await new Promise<net.Socket>((resolve, reject) => {
      const req = http.get(`${server.url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(req.socket as net.Socket));
      });
      req.on("error", reject);
    });
    const session = http2.connect(server.url);
    session.on("error", () => {});
    await new Promise<void>((resolve, reject) => {
      const stream = session.request({ ":path": "/healthz" });
      stream.on("error", reject);
      stream.resume();
      stream.on("end", () => resolve());
      stream.end();
    });
    const h1Closed = new Promise<void>((r) => h1Socket.once("close", () => r()));
    const h2Closed = new Promise<void>((r) => session.once("close", () => r()));

    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    await Promise.all([h1Closed, h2Closed]);
    agent.destroy();
  });

  it("gives up on a request that never finishes within the grace period", async () => {
    const hang: Handler = () => {
      /* never responds */
    };
    const server = await startServer({
      listenAddr: "127.0.0.1:0",
      connect: standInConnect(),
      mcp: hang,
      auth: new TokenAuth(),
      log: silentLog,
    });
    const h1 = http.request(`${server.url}/mcp`, { method: "POST" });
    h1.on("error", () => {});
    h1.end("{}");
    const session = http2.connect(server.url);
    session.on("error", () => {});
    const stream = session.request({ ":path": "/mcp", ":method": "POST" });
    stream.on("error", () => {});
    stream.end("{}");
    await new Promise((r) => setTimeout(r, 100));

    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2_500);
    session.destroy();
  });

  it("can be called twice", async () => {
    const server = await startServer({ listenAddr: "127.0.0.1:0", connect: standInConnect(), auth: new TokenAuth(), log: silentLog });
    await Promise.all([server.close(), server.close()]);
    await server.close();
  });
});

describe("parseListenAddr", () => {
  it("reads host:port, bracketed IPv6 and a bare :port", () => {
    expect(parseListenAddr("127.0.0.1:8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(parseListenAddr("localhost:0")).toEqual({ host: "localhost", port: 0 });
    expect(parseListenAddr("[::1]:0")).toEqual({ host: "::1", port: 0 });
    expect(parseListenAddr(":9000")).toEqual({ host: "0.0.0.0", port: 9000 });
  });

  it.each(["8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:http", "127.0.0.1:70000", "::1:80", "[::1]80", "[nope]:80", "a b:80"])(
    "refuses %j with a clear message",
    (addr) => {
      expect(() => parseListenAddr(addr)).toThrow(/listen address must be host:port/);
    },
  );
});
