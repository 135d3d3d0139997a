/**
 * While the issuer cannot be reached, an OIDC token is neither accepted nor
 * called bad: the caller is told to retry (503, `unavailable`), not to sign
 * in again, and the server keeps answering.
 */
import net from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

let server: TestServer;
let issuer: string;

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

beforeAll(async () => {
  issuer = `http://127.0.0.1:${await closedPort()}`;
  server = await startTestServer({ env: { ENGRAM_OIDC_ISSUER: issuer, ENGRAM_AUTH_TOKENS: "ops=tok-ops" } });
});
afterAll(async () => server?.close());

describe("an OIDC token while the issuer cannot be reached", () => {
  it("is 503 with Retry-After on Connect as on MCP, naming no challenge", async () => {
    const token = `${b64({ alg: "RS256", kid: "k" })}.${b64({ iss: issuer, email: "ada@example.test", email_verified: true, exp: 4102444800 })}.c2ln`;
    const r = await fetch(`${server.url}/engram.v1.EngramService/ListScopes`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: "{}" });
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("5");
    expect(r.headers.get("www-authenticate")).toBeNull();
    expect(await r.json()).toEqual({ code: "unavailable", message: "the identity provider could not be reached; try again" });
  });

  it("is unavailable on Connect and 503 with Retry-After on MCP, never a 401, and is counted by class", async () => {
    const token = `${b64({ alg: "RS256", kid: "k" })}.${b64({ iss: issuer, email: "ada@example.test", email_verified: true, exp: 4102444800 })}.c2ln`;
    const message = "the identity provider could not be reached; try again";
    const err = await server
      .client(token)
      .listScopes({})
      .catch((e: unknown) => ConnectError.from(e));
    expect(err).toMatchObject({ code: Code.Unavailable, rawMessage: message });
    const mcp = await fetch(`${server.url}/mcp`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: "{}" });
    expect(mcp.status).toBe(503);
    expect(mcp.headers.get("retry-after")).toBe("5");
    expect(mcp.headers.get("www-authenticate")).toBeNull();
    expect(await mcp.json()).toEqual({ code: "unavailable", message });
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer tok-ops" } })).text();
    expect(metrics).toContain('engram_unauthenticated_total{lane="oidc",class="unavailable"} 3');
    expect(server.log.text()).toContain("oidc discovery failed");
  });
});
