/**
 * The bearer lanes against a real OpenID Provider on loopback: human tokens
 * (authorization code) and service tokens (client credentials) of one issuer,
 * and static tokens, on Connect, gRPC and MCP Streamable HTTP; every refusal
 * a 401 whose WWW-Authenticate points at the protected-resource document and
 * names only the failure class; /metrics counts them; and the MCP SDK's own
 * OAuth support finds its way from a bare 401 to a token.
 */
import net from "node:net";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { SERVICE_CLIENTS, startTestIssuer, type TestIssuer } from "./helpers/oidc-provider.js";

const SERVICE_AUDIENCE = "engram-services";
const ADA = "ada@example.test";
const SVC_OWNER = "9:client_id:11:svc-indexer";

let issuer: TestIssuer;
let server: TestServer;
let resource: string;
let metadataUrl: string;
/** Every token this file handles, to prove none reaches the log. */
const seen: string[] = [];

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const note = (t: string): string => (seen.push(t), t);
const grpc = (token: string) =>
  createClient(EngramService, createGrpcTransport({ baseUrl: server.url, interceptors: [(next) => (req) => (req.header.set("authorization", `Bearer ${token}`), next(req))] }));

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: "oidc-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** One refusal as each lane answers it: status, challenge and message. */
async function refusals(token: string) {
  const auth = { authorization: `Bearer ${token}` };
  const connect = await fetch(`${server.url}/engram.v1.EngramService/ListScopes`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{}" });
  const mcp = await fetch(resource, { method: "POST", headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
  const grpcError = await grpc(token)
    .listScopes({})
    .then(() => undefined, (e: unknown) => ConnectError.from(e));
  return {
    connect: { status: connect.status, challenge: connect.headers.get("www-authenticate"), body: (await connect.json()) as { code: string; message: string } },
    mcp: { status: mcp.status, challenge: mcp.headers.get("www-authenticate"), body: (await mcp.json()) as { error: string; message: string } },
    grpc: { code: grpcError?.code, challenge: grpcError?.metadata.get("www-authenticate"), message: grpcError?.rawMessage },
  };
}

beforeAll(async () => {
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  issuer = await startTestIssuer({
    audience: resource,
    serviceAudience: SERVICE_AUDIENCE,
    accounts: { ada: { email: ADA, email_verified: true }, bob: { email: "bob@example.test", email_verified: false }, carl: { preferred_username: "carl" } },
  });
  server = await startTestServer({
    listenAddr: `127.0.0.1:${port}`,
    env: {
      ENGRAM_OIDC_ISSUER: issuer.issuer,
      ENGRAM_OIDC_AUDIENCE: resource,
      ENGRAM_SERVICE_AUTH_OIDC_ISSUER: issuer.issuer,
      ENGRAM_SERVICE_AUTH_OIDC_AUDIENCE: SERVICE_AUDIENCE,
      ENGRAM_SERVICE_AUTH_STATIC_TOKENS: "static-owner=tok-static-1",
      ENGRAM_MCP_RESOURCE_URL: resource,
    },
  });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

describe("the OIDC bearer lanes", () => {
  it("accept a human token and a client-credentials token on Connect, gRPC and MCP, each as its own owner", async () => {
    const human = note(await issuer.humanToken("ada"));
    const service = note(await issuer.serviceToken("svc-indexer"));
    for (const [token, owner] of [
      [human, ADA],
      [service, SVC_OWNER],
    ] as const) {
      const stored = await server.client(token).storeMemory({ content: `note of ${owner}`, scope: "repo:oidc", source: "user-said", category: "decision" });
      const overGrpc = await grpc(token).getMemory({ id: stored.id });
      expect(overGrpc.memory?.owner).toBe(owner);
      const mcp = await mcpClient(token);
      const got = await mcp.callTool({ name: "get_memory", arguments: { id: stored.id } });
      expect(got.structuredContent).toMatchObject({ id: stored.id, owner, content: `note of ${owner}` });
      await mcp.close();
    }
  });

  it("keep owners apart across lanes: a static-token owner and an OIDC owner never see each other's records", async () => {
    const human = note(await issuer.humanToken("ada"));
    const mine = await server.client("tok-static-1").storeMemory({ content: "static owner's note", scope: "repo:iso", source: "user-said", category: "gotcha" });
    const theirs = await server.client(human).storeMemory({ content: "ada's note", scope: "repo:iso", source: "user-said", category: "gotcha" });
    const staticSees = await server.client("tok-static-1").listMemories({ scope: "repo:iso" });
    const adaSees = await server.client(human).listMemories({ scope: "repo:iso" });
    expect(staticSees.memories.map((m) => m.id)).toEqual([mine.id]);
    expect(adaSees.memories.map((m) => m.id)).toEqual([theirs.id]);
    const foreign = await server.client(human).getMemory({ id: mine.id }).catch((e: unknown) => ConnectError.from(e));
    expect(foreign).toMatchObject({ code: Code.NotFound, rawMessage: `not found: ${mine.id}` });
  });

  it("refuse every bad token with 401 on each lane, naming the failure class and the resource metadata, never more", async () => {
    const good = await issuer.serviceToken("svc-indexer");
    const [header, payload] = good.split(".");
    const unsigned = `${Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString("base64url")}.${payload}.`;
    const { privateKey } = await generateKeyPair("RS256");
    const wrongKey = await new SignJWT(decodeJwt(good)).setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: decodeProtectedHeader(`${header}.${payload}.x`).kid }).sign(privateKey);
    const now = Math.floor(Date.now() / 1000);
    const tweaked = async (tweak: (p: Record<string, unknown>) => void, mint: () => Promise<string> = () => issuer.serviceToken("svc-indexer")) => {
      issuer.tweakNext(tweak);
      return mint();
    };
    const cases: [string, string, string][] = [
      ["expired", await tweaked((p) => ((p.iat = now - 7200), (p.exp = now - 3600))), "the token has expired"],
      ["not yet valid", await tweaked((p) => (p.nbf = now + 3600)), "the token was refused"],
      ["wrong audience", await tweaked((p) => (p.aud = "https://elsewhere.example")), "the token is for another audience"],
      ["wrong issuer", await tweaked((p) => (p.iss = "https://other-issuer.example")), "the token's issuer is not one this server accepts"],
      ["unsigned (alg none)", unsigned, "the token was refused"],
      ["signed by another key", wrongKey, "the token was refused"],
      ["email_verified false", await issuer.humanToken("bob"), "the token was refused"],
      ["no owner claim", await issuer.humanToken("carl"), "the token was refused"],
      ["a service with an empty owner", await tweaked((p) => (p.client_id = ""), () => issuer.serviceToken("svc-empty")), "the token was refused"],
    ];
    for (const [label, token, sentence] of cases) {
      note(token);
      const challenge = `Bearer realm="engram", resource_metadata="${metadataUrl}", error="invalid_token", error_description="${sentence}"`;
      const message = `a valid bearer token is required: ${sentence}; send Authorization: Bearer <token> with an OIDC access token, or a service client-credentials access token, or a static token`;
      const r = await refusals(token);
      expect(r.connect, label).toEqual({ status: 401, challenge, body: { code: "unauthenticated", message } });
      expect(r.mcp, label).toEqual(r.connect);
      expect(r.grpc, label).toEqual({ code: Code.Unauthenticated, challenge, message });
    }
    const bare = await fetch(resource, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe(`Bearer realm="engram", resource_metadata="${metadataUrl}"`);
  });

  it("count every 401 on /metrics by lane and class", async () => {
    const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer tok-static-1" } })).text();
    // Each case above was refused once per lane (Connect, MCP, gRPC); the bare MCP request sent nothing.
    expect(text).toContain('engram_unauthenticated_total{lane="service",class="expired"} 3');
    expect(text).toContain('engram_unauthenticated_total{lane="oidc",class="wrong_audience"} 3');
    expect(text).toContain('engram_unauthenticated_total{lane="oidc",class="unknown_issuer"} 3');
    expect(text).toContain('engram_unauthenticated_total{lane="oidc",class="invalid"} 6');
    expect(text).toContain('engram_unauthenticated_total{lane="service",class="invalid"} 12');
    expect(text).toContain('engram_unauthenticated_total{lane="none",class="missing"} 1');
  });

  it("accept a token signed by a key the issuer rotated in, once the key set is fetched again", async () => {
    await issuer.rotate();
    const token = note(await issuer.serviceToken("svc-indexer"));
    expect(decodeProtectedHeader(token).kid).toBe(issuer.kids()[0]);
    // The key set is fetched again at most once per cooldown: ask until the new key is known.
    let answer: string | undefined;
    for (let i = 0; i < 40 && answer === undefined; i++) {
      answer = await server
        .client(token)
        .listScopes({})
        .then(() => "ok", () => undefined);
      if (answer === undefined) await new Promise((r) => setTimeout(r, 150));
    }
    expect(answer).toBe("ok");
  });
});

describe("an MCP client authorizing through the protected-resource metadata", () => {
  it("serves the RFC 9728 document at both well-known paths", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const r = await fetch(`${server.url}${path}`);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ resource, authorization_servers: [issuer.issuer], bearer_methods_supported: ["header"], resource_name: "engram" });
    }
  });

  it("follows a bare 401 to the issuer with the SDK's client-credentials provider and lists the tools with the token", async () => {
    const provider = new ClientCredentialsProvider({ clientId: "svc-indexer", clientSecret: SERVICE_CLIENTS["svc-indexer"], expectedIssuer: issuer.issuer });
    const client = new Client({ name: "oauth-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("store_memory");
    const token = provider.tokens()?.access_token;
    expect(token && decodeJwt(note(token))).toMatchObject({ iss: issuer.issuer, aud: SERVICE_AUDIENCE, client_id: "svc-indexer" });
    await client.close();
  });

  it("never writes a token, or any part of one, to the log", () => {
    const log = server.log.text();
    expect(seen.length).toBeGreaterThan(10);
    for (const token of seen) for (const part of token.split(".").filter((p) => p.length > 8)) expect(log).not.toContain(part);
  });
});
