/**
 * Console sign-in through the issuer: the authorization-code flow with PKCE
 * as a confidential client. `begin` sends the browser to the issuer with a
 * fresh state, nonce and code verifier kept in a sealed, short-lived cookie;
 * `finish` checks the state, exchanges the code (client_secret_basic), checks
 * the ID token (signature, issuer, audience pinned to the client id, nonce)
 * and starts a session for the owner its claims name, by the same rules as
 * the human bearer lane. Nothing of a token or a code is logged or shown.
 */
import { createHash, randomBytes } from "node:crypto";
import { jwtVerify, type JWTVerifyGetKey } from "jose";
import { urlSetting, OIDC_ISSUER_ENV } from "./auth-config.js";
import { DEFAULT_OWNER_CLAIMS, OWNER_CLAIM_ENV, ownerFromClaims, parseClaimList } from "./owner-claim.js";
import { ALGORITHMS, CLOCK_SKEW_SECONDS, fetchDiscovery, remoteKeys, type Discovery } from "./oidc-verifier.js";
import { storeSessionLedger, type MetaTable, type SessionLedger } from "./session-ledger.js";
import { COOKIE_KEY_ENV, ConsoleSession, parseCookieKey, readCookies } from "./ui-session.js";

export const UI_ISSUER_ENV = "ENGRAM_UI_ISSUER";
export const OIDC_CLIENT_ID_ENV = "ENGRAM_OIDC_CLIENT_ID";
export const OIDC_CLIENT_SECRET_ENV = "ENGRAM_OIDC_CLIENT_SECRET";
export const UI_REDIRECT_URL_ENV = "ENGRAM_UI_REDIRECT_URL";
const TOKEN_TIMEOUT_MS = 10_000;
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** Where a sign-in ends: a redirect with cookies to set, the failure as one fixed word in the console's URL. */
export type SignInStep = { location: string; cookies: string[] };
const FAILED = (why: "state" | "denied" | "owner" | "issuer"): SignInStep => ({ location: `/ui/#/sign-in?failed=${why}`, cookies: [] });

function isLoopbackUrl(u: URL): boolean {
  return u.protocol === "http:" && (u.hostname === "localhost" || u.hostname === "[::1]" || u.hostname.startsWith("127."));
}

export class ConsoleSignIn {
  readonly session: ConsoleSession;
  readonly callbackPath: string;
  readonly #issuer: string;
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #redirect: string;
  readonly #claims: readonly string[];
  #discovery: Promise<{ d: Discovery; keys: JWTVerifyGetKey }> | undefined;

  constructor(cfg: { issuer: string; clientId: string; clientSecret: string; redirectUrl: string; cookieKey: Buffer; ownerClaims: readonly string[]; ledger?: SessionLedger }) {
    const redirect = new URL(cfg.redirectUrl);
    this.#issuer = cfg.issuer;
    this.#clientId = cfg.clientId;
    this.#clientSecret = cfg.clientSecret;
    this.#redirect = cfg.redirectUrl;
    this.#claims = cfg.ownerClaims;
    this.callbackPath = redirect.pathname;
    this.session = new ConsoleSession(cfg.cookieKey, cfg.ownerClaims, !isLoopbackUrl(redirect), redirect.pathname, cfg.ledger);
  }

  #discover(): Promise<{ d: Discovery; keys: JWTVerifyGetKey }> {
    this.#discovery ??= fetchDiscovery(this.#issuer).then(
      (d) => ({ d, keys: remoteKeys(d.jwksUri) }),
      (err: unknown) => {
        this.#discovery = undefined;
        throw err;
      },
    );
    return this.#discovery;
  }

  /**
   * Sign-out: a live session proven by its CSRF header is ended on the
   * server (every session of its owner, src/auth/session-ledger.ts) and
   * cleared from the browser; cookies of a session that has already ended
   * are only cleared. Undefined, and nothing ended, for a live session
   * without its CSRF header: another site must not sign the operator out.
   */
  async signOut(cookieHeader: string | string[] | undefined, csrfHeader: string | string[] | undefined): Promise<string[] | undefined> {
    const a = await this.session.resolve(cookieHeader, csrfHeader);
    if (a?.ok === true) {
      if (a.csrf !== true) return undefined;
      await this.session.endAll(a.subject.owner);
    }
    return this.session.clear();
  }

  async begin(): Promise<SignInStep> {
    let d: Discovery;
    try {
      ({ d } = await this.#discover());
    } catch {
      return FAILED("issuer");
    }
    if (d.authorizationEndpoint === undefined) return FAILED("issuer");
    const login = { state: randomBytes(16).toString("base64url"), nonce: randomBytes(16).toString("base64url"), verifier: randomBytes(32).toString("base64url") };
    const url = new URL(d.authorizationEndpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: this.#clientId,
      redirect_uri: this.#redirect,
      scope: "openid email profile",
      state: login.state,
      nonce: login.nonce,
      code_challenge: createHash("sha256").update(login.verifier).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    return { location: url.toString(), cookies: [await this.session.sealLogin(login)] };
  }

  async finish(query: URLSearchParams, cookieHeader: string | string[] | undefined): Promise<SignInStep> {
    const login = await this.session.openLogin(readCookies(cookieHeader));
    const code = query.get("code");
    if (login === undefined || query.get("state") !== login.state) return FAILED("state");
    if (code === null || code === "") return FAILED("denied");
    let idToken: string | undefined;
    let keys: JWTVerifyGetKey;
    try {
      const { d, keys: k } = await this.#discover();
      keys = k;
      if (d.tokenEndpoint === undefined) return FAILED("issuer");
      const basic = Buffer.from(`${encodeURIComponent(this.#clientId)}:${encodeURIComponent(this.#clientSecret)}`).toString("base64");
      const res = await fetch(d.tokenEndpoint, {
        method: "POST",
        redirect: "error",
        signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
        headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: this.#redirect, code_verifier: login.verifier }),
      });
      const text = await res.text();
      if (!res.ok || text.length > MAX_TOKEN_RESPONSE_BYTES) return FAILED("denied");
      const body = JSON.parse(text) as { id_token?: unknown };
      idToken = typeof body.id_token === "string" ? body.id_token : undefined;
    } catch {
      return FAILED("issuer");
    }
    if (idToken === undefined) return FAILED("denied");
    try {
      const { payload } = await jwtVerify(idToken, keys, { issuer: this.#issuer, audience: this.#clientId, algorithms: ALGORITHMS, clockTolerance: CLOCK_SKEW_SECONDS, requiredClaims: ["exp", "nonce"] });
      if (payload.nonce !== login.nonce) return FAILED("state");
      const owner = ownerFromClaims(payload, this.#claims);
      if (owner === undefined || owner.owner === "") return FAILED("owner");
      return { location: "/ui/", cookies: await this.session.start(owner.owner, owner.actor) };
    } catch {
      return FAILED("denied");
    }
  }
}

/**
 * Console sign-in from the environment: on when the client id is set, and
 * then every other setting it needs must be too. Undefined when off (the
 * console keeps its token sign-in either way). `meta` is the store's meta
 * table, where sign-outs are kept for every server on that store.
 */
export function consoleSignInFromEnv(env: NodeJS.ProcessEnv = process.env, meta?: MetaTable): ConsoleSignIn | undefined {
  const clientId = env[OIDC_CLIENT_ID_ENV]?.trim();
  if (clientId === undefined || clientId === "") return undefined;
  const issuer = urlSetting(env, UI_ISSUER_ENV) ?? urlSetting(env, OIDC_ISSUER_ENV);
  const clientSecret = env[OIDC_CLIENT_SECRET_ENV]?.trim();
  const redirectUrl = urlSetting(env, UI_REDIRECT_URL_ENV);
  const key = env[COOKIE_KEY_ENV];
  const missing = [
    issuer === undefined ? `${UI_ISSUER_ENV} (or ${OIDC_ISSUER_ENV})` : "",
    !clientSecret ? OIDC_CLIENT_SECRET_ENV : "",
    redirectUrl === undefined ? UI_REDIRECT_URL_ENV : "",
    key === undefined || key.trim() === "" ? COOKIE_KEY_ENV : "",
  ].filter((m) => m !== "");
  if (missing.length > 0) throw new Error(`${OIDC_CLIENT_ID_ENV} turns on console sign-in, which also needs ${missing.join(", ")}`);
  return new ConsoleSignIn({
    issuer: issuer!,
    clientId,
    clientSecret: clientSecret!,
    redirectUrl: redirectUrl!,
    cookieKey: parseCookieKey(key!),
    ownerClaims: parseClaimList(env[OWNER_CLAIM_ENV], DEFAULT_OWNER_CLAIMS, OWNER_CLAIM_ENV),
    ...(meta ? { ledger: storeSessionLedger(meta) } : {}),
  });
}
