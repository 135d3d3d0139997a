/**
 * A console session that ends, ends: signed in through a real OpenID
 * Provider (oidc-provider on loopback), signed out, and the old cookie and
 * CSRF value replayed are unauthenticated on every route, on this server and
 * on a second server that shares its store and cookie key.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../src/app.js";
import { SESSION_ENDED } from "../src/auth/index.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { signInThroughIssuer, type ConsoleCookies } from "./helpers/console-sign-in.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { startTestIssuer, type TestIssuer } from "./helpers/oidc-provider.js";
import { captureLog } from "./helpers/capture-log.js";
import { runEngram } from "./helpers/run-engram.js";

const ADA = "ada@example.test";
const COOKIE_KEY = "Zm9yLXRlc3RzLW9ubHktMzItYnl0ZXMtb2Yta2V5LSE="; // 32 bytes, base64

let issuer: TestIssuer;
let server: TestServer;
let second: { url: string; close(): Promise<void> };

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** One Connect JSON call as the console page makes it: the cookies, and the CSRF header. */
async function call(base: string, procedure: string, body: unknown, c: ConsoleCookies): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${base}/engram.v1.EngramService/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: c.header, "x-csrf-token": c.csrf },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

const whoami = async (base: string, c: ConsoleCookies) => (await (await fetch(`${base}/ui/auth`, { headers: { cookie: c.header } })).json()) as { session: unknown };
const signOut = (base: string, c: ConsoleCookies) => fetch(`${base}/ui/logout`, { method: "POST", headers: { cookie: c.header, "x-csrf-token": c.csrf } });
const STORE = { content: "written through the console session", scope: "repo:sso", source: "user-said", category: "decision" };

beforeAll(async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  issuer = await startTestIssuer({ audience: `${base}/mcp`, serviceAudience: "engram-services", accounts: { ada: { email: ADA, email_verified: true } }, consoleRedirects: [`${base}/ui/callback`] });
  const env = {
    ENGRAM_OIDC_ISSUER: issuer.issuer,
    ENGRAM_OIDC_AUDIENCE: `${base}/mcp`,
    ENGRAM_OIDC_CLIENT_ID: issuer.consoleClient.id,
    ENGRAM_OIDC_CLIENT_SECRET: issuer.consoleClient.secret,
    ENGRAM_UI_REDIRECT_URL: `${base}/ui/callback`,
    ENGRAM_UI_COOKIE_KEY: COOKIE_KEY,
  };
  // 512 dimensions, as the operator verb's own (local) embedder has: on Qdrant it opens the collection with that size.
  server = await startTestServer({ listenAddr: `127.0.0.1:${port}`, env, embedder: new FakeEmbedder(512) });
  // The same store and cookie key behind another listener, as a second replica would be.
  const running = await serve({ listenAddr: "127.0.0.1:0", env: { ...server.storeEnv, ...env }, embedder: server.embedder, store: server.store, log: captureLog() });
  second = { url: running.server.url, close: () => running.server.close() };
}, 30_000);

afterAll(async () => {
  await second?.close();
  await server?.close();
  await issuer?.close();
});

describe("console sign-out through a real identity provider", () => {
  let old: ConsoleCookies;

  it("signs in: the session reads and, with its CSRF value, writes on both servers", async () => {
    old = await signInThroughIssuer(server.url, issuer.issuer, "ada");
    for (const base of [server.url, second.url]) {
      expect((await call(base, "ListScopes", {}, old)).status).toBe(200);
      expect((await call(base, "StoreMemory", STORE, old)).status).toBe(200);
      expect(await whoami(base, old)).toMatchObject({ session: { owner: ADA, actor: ADA } });
    }
  });

  it("signs out: 204, and both cookies are cleared from the browser", async () => {
    const r = await signOut(server.url, old);
    expect(r.status).toBe(204);
    expect(r.headers.getSetCookie().map((c) => c.split(";")[0])).toEqual(["engram_session=", "engram_csrf="]);
  });

  it("replayed with its old CSRF value, the cookie is unauthenticated on every Connect procedure of both servers", async () => {
    for (const base of [server.url, second.url]) {
      for (const m of EngramService.methods) {
        const r = await call(base, m.name, m.name === "StoreMemory" ? STORE : {}, old);
        expect(r, `${m.name} on ${base === server.url ? "the signing-out server" : "the second server"}`).toEqual({ status: 401, json: { code: "unauthenticated", message: SESSION_ENDED } });
      }
    }
  });

  it("replayed, the cookie names no one at /ui/auth, is refused by MCP and /metrics, and signing out again only clears it", async () => {
    for (const base of [server.url, second.url]) {
      expect(await whoami(base, old)).toMatchObject({ session: null });
      for (const path of ["/mcp", "/metrics"]) {
        const r = await fetch(`${base}${path}`, { method: path === "/mcp" ? "POST" : "GET", headers: { cookie: old.header, "x-csrf-token": old.csrf, "content-type": "application/json" }, body: path === "/mcp" ? "{}" : undefined });
        expect(r.status, path).toBe(401);
      }
      expect((await signOut(base, old)).status).toBe(204);
    }
  });

  it("a fresh sign-in afterwards works on both servers, and the old cookie stays refused", async () => {
    const fresh = await signInThroughIssuer(server.url, issuer.issuer, "ada");
    for (const base of [server.url, second.url]) {
      expect((await call(base, "ListScopes", {}, fresh)).status).toBe(200);
      expect((await call(base, "ListScopes", {}, old)).status).toBe(401);
    }
  });

  it("a sign-out on the second server ends the session on the first", async () => {
    const c = await signInThroughIssuer(server.url, issuer.issuer, "ada");
    expect((await signOut(second.url, c)).status).toBe(204);
    expect(await call(server.url, "ListScopes", {}, c)).toEqual({ status: 401, json: { code: "unauthenticated", message: SESSION_ENDED } });
  });

  it("a CSRF cookie whose session cookie the browser dropped is told the session ended, not to send a bearer token", async () => {
    const c = await signInThroughIssuer(server.url, issuer.issuer, "ada");
    const alone = { ...c, header: `engram_csrf=${c.csrf}` };
    expect(await call(server.url, "ListScopes", {}, alone)).toEqual({ status: 401, json: { code: "unauthenticated", message: SESSION_ENDED } });
  });

  it("a sign-out without the CSRF header is refused and ends nothing", async () => {
    const c = await signInThroughIssuer(server.url, issuer.issuer, "ada");
    const r = await fetch(`${server.url}/ui/logout`, { method: "POST", headers: { cookie: c.header } });
    expect(r.status).toBe(403);
    expect((await call(server.url, "ListScopes", {}, c)).status).toBe(200);
  });

  it("an operator's end-sessions ends the owner's sessions on every server after a preview that ends nothing", async () => {
    const c = await signInThroughIssuer(server.url, issuer.issuer, "ada");
    const preview = await runEngram(["end-sessions", "--owner", ADA, "--output", "json"], server.storeEnv);
    expect({ code: preview.code, stderr: preview.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(preview.stdout)).toMatchObject({ dry_run: true });
    expect((await call(server.url, "ListScopes", {}, c)).status).toBe(200);
    const applied = await runEngram(["end-sessions", "--owner", ADA, "--apply", "--output", "json"], server.storeEnv);
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(applied.stdout)).toMatchObject({ dry_run: false });
    for (const base of [server.url, second.url]) {
      expect(await call(base, "ListScopes", {}, c)).toEqual({ status: 401, json: { code: "unauthenticated", message: SESSION_ENDED } });
    }
  });

  it("end-sessions without --owner is the owner envelope, exit 2", async () => {
    const run = await runEngram(["end-sessions", "--apply"], server.storeEnv);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: "field=owner hint=required: --owner <owner> is required: the owner whose console sessions end\n",
    });
  });
});
