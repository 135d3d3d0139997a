/**
 * The console's session cookie: the owner and actor a sign-in proved, sealed
 * with AES-256-GCM (jose's `dir` + `A256GCM`) under a key derived from
 * `ENGRAM_UI_COOKIE_KEY`, so the browser holds it but can neither read nor
 * change it. It carries a version made of the session format and the owner
 * claims it was resolved under: a release that changes how owners are
 * encoded, or an operator who changes `ENGRAM_OWNER_CLAIM`, makes every
 * earlier cookie fail and its holder sign in again. It also carries the
 * owner's session generation at sign-in (src/auth/session-ledger.ts): once a
 * sign-out advances it, the cookie is refused wherever it is replayed.
 */
import { hkdfSync } from "node:crypto";
import { EncryptJWT, jwtDecrypt } from "jose";
import { ownerSubject } from "../model/subject.js";
import { admitted, refused, type AuthResult } from "./auth-result.js";
import { CSRF_COOKIE, csrfVerified, mintCsrfToken } from "./csrf.js";
import { memorySessionLedger, type SessionLedger } from "./session-ledger.js";

export const SESSION_COOKIE = "engram_session";
export const LOGIN_COOKIE = "engram_login";
export const COOKIE_KEY_ENV = "ENGRAM_UI_COOKIE_KEY";
/** Bumped when the session's contents or the owner encoding change. */
const SESSION_FORMAT = "s2.o1";
/** A session ends this long after its last use... */
const SESSION_SECONDS = 8 * 3600;
/** ...and is resealed (a fresh expiry) on a request this long after it was last sealed... */
const RESEAL_AFTER_SECONDS = 15 * 60;
/** ...but never past this long after the sign-in itself. */
const MAX_SESSION_SECONDS = 7 * 24 * 3600;
const LOGIN_SECONDS = 600;
/** A cookie header longer than this is not one the console set. */
const MAX_COOKIE_HEADER = 8 * 1024;

/** 32 bytes, as 64 hex digits or base64/base64url; anything else stops the start. */
export function parseCookieKey(raw: string): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, /[+/=]/.test(text) ? "base64" : "base64url");
  if (key.length !== 32) throw new Error(`${COOKIE_KEY_ENV} must be 32 bytes, written as 64 hex digits or in base64 (e.g. openssl rand -base64 32)`);
  return key;
}

/** `name=value` pairs of a Cookie header; the first of a repeated name wins, as browsers send the most specific first. */
export function readCookies(header: string | string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const text = Array.isArray(header) ? header.join("; ") : (header ?? "");
  if (text.length > MAX_COOKIE_HEADER) return out;
  for (const part of text.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

export type LoginState = { state: string; nonce: string; verifier: string };

export class ConsoleSession {
  readonly #sealKey: Uint8Array;
  readonly #csrfKey: Buffer;
  readonly #version: string;
  readonly #secure: boolean;
  readonly #loginPath: string;
  readonly #ledger: SessionLedger;

  /**
   * `ownerClaims` is part of the version; `secure` is false only when the
   * console is served on loopback; the sign-in's own cookie is sent to
   * `loginPath` (the redirect URL's path) only; `ledger` keeps sign-outs.
   */
  constructor(cookieKey: Buffer, ownerClaims: readonly string[], secure: boolean, loginPath = "/ui/callback", ledger: SessionLedger = memorySessionLedger()) {
    this.#ledger = ledger;
    this.#sealKey = new Uint8Array(hkdfSync("sha256", cookieKey, Buffer.alloc(0), "engram console session", 32));
    this.#csrfKey = Buffer.from(hkdfSync("sha256", cookieKey, Buffer.alloc(0), "engram console csrf", 32));
    this.#version = `${SESSION_FORMAT}:${ownerClaims.join(",")}`;
    this.#secure = secure;
    this.#loginPath = loginPath;
  }

  #cookie(name: string, value: string, maxAge: number, opts: { httpOnly: boolean; path: string }): string {
    return `${name}=${value}; Path=${opts.path}; Max-Age=${maxAge}; SameSite=Lax${opts.httpOnly ? "; HttpOnly" : ""}${this.#secure ? "; Secure" : ""}`;
  }

  async #seal(typ: string, claims: Record<string, unknown>, seconds: number): Promise<string> {
    return new EncryptJWT({ ...claims, v: this.#version })
      .setProtectedHeader({ alg: "dir", enc: "A256GCM", typ })
      .setIssuedAt()
      .setExpirationTime(`${seconds}s`)
      .encrypt(this.#sealKey);
  }

  async #open(typ: string, value: string | undefined): Promise<Record<string, unknown> | "expired" | "invalid"> {
    if (value === undefined || value === "") return "invalid";
    try {
      const { payload, protectedHeader } = await jwtDecrypt(value, this.#sealKey, { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256GCM"] });
      if (protectedHeader.typ !== typ || payload.v !== this.#version) return "invalid";
      return payload;
    } catch (err) {
      return err instanceof Error && (err as { code?: string }).code === "ERR_JWT_EXPIRED" ? "expired" : "invalid";
    }
  }

  /** The Set-Cookie values that start a session for this owner: the sealed session and its CSRF token. */
  async start(owner: string, actor: string): Promise<string[]> {
    const since = Math.floor(Date.now() / 1000);
    const g = await this.#ledger.generation(owner);
    return [
      this.#cookie(SESSION_COOKIE, await this.#seal("engram-session", { owner, actor, since, g }, SESSION_SECONDS), SESSION_SECONDS, { httpOnly: true, path: "/" }),
      // Readable by the page, which sends it back as X-CSRF-Token.
      this.#cookie(CSRF_COOKIE, mintCsrfToken(this.#csrfKey, owner), SESSION_SECONDS, { httpOnly: false, path: "/" }),
      this.#cookie(LOGIN_COOKIE, "", 0, { httpOnly: true, path: this.#loginPath }),
    ];
  }

  /** Ends every session of this owner, here and on every server sharing the ledger. */
  async endAll(owner: string): Promise<void> {
    await this.#ledger.advance(owner);
  }

  /** The Set-Cookie values that clear a session from the browser. */
  clear(): string[] {
    return [this.#cookie(SESSION_COOKIE, "", 0, { httpOnly: true, path: "/" }), this.#cookie(CSRF_COOKIE, "", 0, { httpOnly: false, path: "/" })];
  }

  async sealLogin(login: LoginState): Promise<string> {
    return this.#cookie(LOGIN_COOKIE, await this.#seal("engram-login", login, LOGIN_SECONDS), LOGIN_SECONDS, { httpOnly: true, path: this.#loginPath });
  }

  async openLogin(cookies: Map<string, string>): Promise<LoginState | undefined> {
    const p = await this.#open("engram-login", cookies.get(LOGIN_COOKIE));
    if (typeof p === "string") return undefined;
    const { state, nonce, verifier } = p;
    return typeof state === "string" && typeof nonce === "string" && typeof verifier === "string" ? { state, nonce, verifier } : undefined;
  }

  /**
   * The cookie lane: undefined when the request carries neither cookie of a
   * session (the bearer lanes decide), else who the session is and whether
   * its CSRF token came back in the header (a write needs it). A CSRF cookie
   * left without its session (the browser dropped the session cookie) is a
   * session that has ended, not a missing bearer.
   */
  async resolve(cookieHeader: string | string[] | undefined, csrfHeader: string | string[] | undefined): Promise<AuthResult | undefined> {
    const cookies = readCookies(cookieHeader);
    if (!cookies.has(SESSION_COOKIE)) return cookies.has(CSRF_COOKIE) ? refused("cookie", "expired") : undefined;
    const p = await this.#open("engram-session", cookies.get(SESSION_COOKIE));
    if (p === "expired" || p === "invalid") return refused("cookie", p === "expired" ? "expired" : "invalid");
    if (typeof p.owner !== "string" || p.owner === "" || typeof p.actor !== "string" || typeof p.g !== "number") return refused("cookie", "invalid");
    let current: number;
    try {
      current = await this.#ledger.generation(p.owner);
    } catch {
      return refused("cookie", "unavailable");
    }
    // Signed out since: the owner's generation moved past the one sealed in.
    if (p.g !== current) return refused("cookie", "expired");
    const header = typeof csrfHeader === "string" ? csrfHeader : undefined;
    const subject = Object.freeze({ ...ownerSubject(p.owner), actor: p.actor });
    return admitted(subject, "cookie", csrfVerified(this.#csrfKey, p.owner, cookies.get(CSRF_COOKIE), header), await this.#renewal(p, cookies));
  }

  /** The Set-Cookie values that extend a session in use: resealed with a fresh expiry, its CSRF token kept. */
  async #renewal(p: Record<string, unknown>, cookies: Map<string, string>): Promise<string[] | undefined> {
    const now = Math.floor(Date.now() / 1000);
    const { iat, since, owner, actor, g } = p;
    if (typeof iat !== "number" || typeof since !== "number" || now - iat < RESEAL_AFTER_SECONDS || now - since >= MAX_SESSION_SECONDS) return undefined;
    const csrf = cookies.get(CSRF_COOKIE);
    if (csrf === undefined || !csrfVerified(this.#csrfKey, owner as string, csrf, csrf)) return undefined;
    const seconds = Math.min(SESSION_SECONDS, since + MAX_SESSION_SECONDS - now);
    return [
      this.#cookie(SESSION_COOKIE, await this.#seal("engram-session", { owner, actor, since, g }, seconds), seconds, { httpOnly: true, path: "/" }),
      this.#cookie(CSRF_COOKIE, csrf, seconds, { httpOnly: false, path: "/" }),
    ];
  }
}
