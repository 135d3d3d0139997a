import { afterEach, describe, expect, it, vi } from "vitest";
import { ConsoleSession } from "../src/auth/index.js";
import { parseCookieKey } from "../src/auth/ui-session.js";

const KEY = parseCookieKey("00".repeat(16) + "11".repeat(16));
const cookieHeader = (setCookies: string[]) => setCookies.map((c) => c.split(";")[0]).join("; ");

describe("the console's session cookie", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is sealed, HttpOnly and SameSite=Lax, Secure unless on loopback, with a readable CSRF cookie beside it", async () => {
    const cookies = await new ConsoleSession(KEY, ["email"], true).start("ada@example.test", "ada@example.test");
    expect(cookies[0]).toMatch(/^engram_session=[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=28800; SameSite=Lax; HttpOnly; Secure$/);
    expect(cookies[0]).not.toContain("ada");
    expect(cookies[1]).toMatch(/^engram_csrf=[\w-]+\.[\w-]+; Path=\/; Max-Age=28800; SameSite=Lax; Secure$/);
    expect((await new ConsoleSession(KEY, ["email"], false).start("a", "a"))[0]).not.toContain("Secure");
  });

  it("admits its owner, says whether the CSRF header came back, and binds that token to the owner", async () => {
    const session = new ConsoleSession(KEY, ["email"], false);
    const ada = cookieHeader(await session.start("ada@example.test", "ada@example.test"));
    const csrf = /engram_csrf=([^;]+)/.exec(ada)![1]!;
    expect(await session.resolve(ada, csrf)).toMatchObject({ ok: true, lane: "cookie", csrf: true, subject: { owner: "ada@example.test" } });
    expect(await session.resolve(ada, undefined)).toMatchObject({ ok: true, csrf: false });
    expect(await session.resolve(undefined, undefined)).toBeUndefined();
    // Bob's CSRF token beside Ada's session does not verify, even sent as cookie and header alike.
    const bob = cookieHeader(await session.start("bob@example.test", "bob@example.test"));
    const bobCsrf = /engram_csrf=([^;]+)/.exec(bob)![1]!;
    const mixed = `${ada.split("; ")[0]}; engram_csrf=${bobCsrf}`;
    expect(await session.resolve(mixed, bobCsrf)).toMatchObject({ ok: true, csrf: false });
  });

  it("is refused under another key, or once the owner claims it was made under change (everyone signs in again)", async () => {
    const ada = cookieHeader(await new ConsoleSession(KEY, ["email"], false).start("ada@example.test", "ada@example.test"));
    expect(await new ConsoleSession(KEY, ["email", "sub"], false).resolve(ada, undefined)).toEqual({ ok: false, lane: "cookie", failure: "invalid" });
    expect(await new ConsoleSession(parseCookieKey("22".repeat(32)), ["email"], false).resolve(ada, undefined)).toEqual({ ok: false, lane: "cookie", failure: "invalid" });
  });

  it("ends every session of an owner once signed out, and no other owner's; a CSRF cookie left alone is an ended session", async () => {
    const session = new ConsoleSession(KEY, ["email"], false);
    const ada = cookieHeader(await session.start("ada@example.test", "ada@example.test"));
    const adaElsewhere = cookieHeader(await session.start("ada@example.test", "ada@example.test"));
    const bob = cookieHeader(await session.start("bob@example.test", "bob@example.test"));
    await session.endAll("ada@example.test");
    expect(await session.resolve(ada, undefined)).toEqual({ ok: false, lane: "cookie", failure: "expired" });
    expect(await session.resolve(adaElsewhere, undefined)).toEqual({ ok: false, lane: "cookie", failure: "expired" });
    expect(await session.resolve(bob, undefined)).toMatchObject({ ok: true, subject: { owner: "bob@example.test" } });
    expect(await session.resolve(cookieHeader(await session.start("ada@example.test", "ada@example.test")), undefined)).toMatchObject({ ok: true });
    expect(await session.resolve(ada.split("; ")[1], undefined)).toEqual({ ok: false, lane: "cookie", failure: "expired" });
  });

  it("takes a 32-byte key as hex or base64 and refuses any other length", () => {
    expect(parseCookieKey(Buffer.alloc(32, 7).toString("base64")).length).toBe(32);
    expect(() => parseCookieKey("short")).toThrow("ENGRAM_UI_COOKIE_KEY must be 32 bytes, written as 64 hex digits or in base64 (e.g. openssl rand -base64 32)");
  });

  it("is resealed with a fresh expiry, its CSRF token kept, once in use a while after it was sealed", async () => {
    const session = new ConsoleSession(KEY, ["email"], false);
    const signedIn = Date.now();
    const ada = cookieHeader(await session.start("ada@example.test", "ada@example.test"));
    const csrf = /engram_csrf=([^;]+)/.exec(ada)![1]!;
    expect((await session.resolve(ada, csrf))).not.toHaveProperty("renew");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(signedIn + 20 * 60_000);
    const renewed = await session.resolve(ada, csrf);
    expect(renewed).toMatchObject({ ok: true, csrf: true });
    const renew = (renewed as { renew?: readonly string[] } | undefined)?.renew ?? [];
    expect(renew[0]).toMatch(/^engram_session=[^;]+; Path=\/; Max-Age=28800; SameSite=Lax; HttpOnly$/);
    expect(renew[1]).toBe(`engram_csrf=${csrf}; Path=/; Max-Age=28800; SameSite=Lax`);
    // Past the first cookie's end, the resealed one still holds.
    vi.setSystemTime(signedIn + 8 * 3600_000 + 10 * 60_000);
    expect(await session.resolve(cookieHeader([renew[0]!, renew[1]!]), csrf)).toMatchObject({ ok: true });
    expect(await session.resolve(ada, csrf)).toEqual({ ok: false, lane: "cookie", failure: "expired" });
  });
});
