/**
 * The console signs in through a real OpenID Provider (oidc-provider on
 * loopback) in headless Chromium: the authorization-code flow with PKCE as a
 * confidential client, a sealed HttpOnly session cookie, and a CSRF token the
 * page sends back on every call. A write from the session without it is
 * permission_denied; a bearer caller needs none.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { startTestIssuer, type TestIssuer } from "./helpers/oidc-provider.js";

const CANDIDATES = process.env.ENGRAM_TEST_CHROMIUM ? [process.env.ENGRAM_TEST_CHROMIUM] : ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
const BROWSER = CANDIDATES.find((p) => existsSync(p));
const SKIP_REASON = `skipped: no Chromium at ${CANDIDATES.join(" or ")} (.ci/run installs Debian's chromium; set ENGRAM_TEST_CHROMIUM to another binary)`;
const ADA = "ada@example.test";
const COOKIE_KEY = "Zm9yLXRlc3RzLW9ubHktMzItYnl0ZXMtb2Yta2V5LSE="; // 32 bytes, base64

let issuer: TestIssuer;
let server: TestServer;

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** One Connect JSON call from the page, as the console's own origin makes it, with or without the CSRF header. */
function call(page: Page, procedure: string, body: unknown, csrf: boolean): Promise<{ status: number; json: Record<string, unknown> }> {
  return page.evaluate(
    async (p, b, withCsrf) => {
      const token = /(?:^|;\s*)engram_csrf=([^;]*)/.exec(document.cookie)?.[1];
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (withCsrf && token) headers["x-csrf-token"] = token;
      const r = await fetch(`/engram.v1.EngramService/${p}`, { method: "POST", headers, body: JSON.stringify(b) });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    },
    procedure,
    body,
    csrf,
  );
}

beforeAll(async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  issuer = await startTestIssuer({ audience: `${base}/mcp`, serviceAudience: "engram-services", accounts: { ada: { email: ADA, email_verified: true } }, consoleRedirects: [`${base}/ui/callback`] });
  server = await startTestServer({
    listenAddr: `127.0.0.1:${port}`,
    env: {
      ENGRAM_OIDC_ISSUER: issuer.issuer,
      ENGRAM_OIDC_AUDIENCE: `${base}/mcp`,
      ENGRAM_OIDC_CLIENT_ID: issuer.consoleClient.id,
      ENGRAM_OIDC_CLIENT_SECRET: issuer.consoleClient.secret,
      ENGRAM_UI_REDIRECT_URL: `${base}/ui/callback`,
      ENGRAM_UI_COOKIE_KEY: COOKIE_KEY,
    },
  });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

describe.skipIf(!BROWSER)(`console sign-in through the issuer in headless Chromium${BROWSER ? "" : ` (${SKIP_REASON})`}`, () => {
  let browser: Browser;
  let page: Page;
  let profile: string;

  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), "engram-chromium-"));
    browser = await puppeteer.launch({
      executablePath: BROWSER!,
      headless: true,
      userDataDir: profile,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it("signs in at the provider's pages and lands on the console with a sealed HttpOnly session and a readable CSRF cookie", async () => {
    await page.goto(`${server.url}/ui/`);
    await page.waitForSelector("#issuer-sign-in");
    await Promise.all([page.waitForNavigation(), page.click("#issuer-sign-in")]);
    expect(page.url().startsWith(issuer.issuer)).toBe(true);
    await page.type("input[name=login]", "ada");
    await page.type("input[name=password]", "any");
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    // The provider asks for consent once.
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    await page.waitForSelector("#sign-out");
    expect(new URL(page.url()).pathname).toBe("/ui/");
    const cookies = Object.fromEntries((await browser.cookies()).map((c) => [c.name, c]));
    expect(cookies.engram_session).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false, path: "/" });
    expect(cookies.engram_csrf).toMatchObject({ httpOnly: false, sameSite: "Lax", path: "/" });
    expect(cookies.engram_session!.value).not.toContain(ADA);
    expect(await page.evaluate(() => fetch("/ui/auth").then((r) => r.json()))).toEqual({ issuer_sign_in: true, anonymous: false, session: { owner: ADA, actor: ADA } });
    await page.waitForFunction(() => document.querySelector("#whoami")?.textContent !== "");
    expect(await page.$eval("#whoami", (e) => e.textContent)).toBe(`Signed in as ${ADA}`);
  });

  it("stores through the session, archives on the console's own page, and the issuer's bearer token sees the same owner's record", async () => {
    const stored = await call(page, "StoreMemory", { content: "signed in through the issuer", scope: "repo:sso", source: "user-said", category: "decision" }, true);
    expect(stored.status).toBe(200);
    const id = stored.json.id as string;
    await page.evaluate(() => (location.hash = "#/archive"));
    await page.waitForSelector("#archive textarea");
    await page.type("#archive textarea", id);
    await page.click("#archive button[type=submit]");
    await page.waitForSelector('#outcomes td[data-outcome="archived"]');
    const got = await server.client(await issuer.humanToken("ada")).getMemory({ id });
    expect(got.memory).toMatchObject({ id, owner: ADA, content: "signed in through the issuer" });
    expect(got.memory?.archivedAt).toBeDefined();
  });

  it("refuses a session's write without the CSRF token as permission_denied, still reads, and refuses a tampered cookie as unauthenticated", async () => {
    const write = await call(page, "StoreMemory", { content: "forged from another site", scope: "repo:sso", source: "user-said", category: "decision" }, false);
    expect(write).toEqual({ status: 403, json: { code: "permission_denied", message: "csrf: a console session's write needs the X-CSRF-Token header, equal to its engram_csrf cookie" } });
    expect((await call(page, "ListScopes", {}, false)).status).toBe(200);
    const session = (await browser.cookies()).find((c) => c.name === "engram_session")!;
    await browser.setCookie({ ...session, value: `${session.value.slice(0, -4)}AAAA` });
    const tampered = await call(page, "ListScopes", {}, true);
    expect(tampered.status).toBe(401);
    expect(tampered.json.code).toBe("unauthenticated");
    await browser.setCookie(session);
  });

  it("signs out: the session's cookies are gone, the console is back at sign-in, and put back they are told the session has ended", async () => {
    const held = (await browser.cookies()).filter((c) => c.name.startsWith("engram_"));
    await page.click("#sign-out");
    await page.waitForSelector("#issuer-sign-in");
    expect((await browser.cookies()).map((c) => c.name).filter((n) => n.startsWith("engram_"))).toEqual([]);
    expect(server.log.text()).not.toContain("engram_session=");
    // The old cookies replayed: the server no longer honours them, and the page says so in a signed-in person's words.
    await browser.setCookie(...held);
    expect((await call(page, "ListScopes", {}, true)).json).toEqual({ code: "unauthenticated", message: "the console session has ended (signed out, or it expired); sign in again" });
    await page.evaluate(() => (location.hash = "#/scopes"));
    await page.waitForSelector("#issuer-failed");
    expect(await page.$eval("#issuer-failed", (e) => e.textContent)).toBe("Your session has ended (you signed out, or it expired). Sign in again.");
    expect(await page.evaluate(() => document.cookie)).not.toContain("engram_csrf");
    expect(await page.$("#anonymous")).toBeNull();
  });
});
