/**
 * One OIDC issuer's access tokens, checked with jose: the issuer's discovery
 * document names its JWKS; keys are fetched once, cached, and fetched again
 * when a token names a key id the cache does not hold (the issuer rotated),
 * at most once per cooldown. A token passes with a good signature by an
 * asymmetric algorithm, the issuer exactly, an expiry in the future and a
 * not-before in the past (each within a small clock skew), and the audience
 * when one is configured.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { AuthFailure } from "./auth-result.js";

/** Clocks of issuer and server may differ this much. */
export const CLOCK_SKEW_SECONDS = 30;
/** A token naming an unknown key id refetches the key set at most this often. */
export const JWKS_COOLDOWN_MS = 2_000;
/** Keys are refetched after this long even when every token finds its key. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 5_000;
/** A failed discovery is tried again no sooner than this. */
const DISCOVERY_RETRY_MS = 2_000;
/** A discovery document larger than this is not one. */
const MAX_DISCOVERY_BYTES = 256 * 1024;
/** `none` and the shared-secret algorithms are never accepted: the server holds no issuer secret. */
export const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

export type Verified = { ok: true; payload: JWTPayload } | { ok: false; failure: AuthFailure };

export type OidcVerifierOptions = {
  issuer: string;
  audience?: string;
  /** Told (without token text) when discovery or the key set cannot be reached. */
  warn?: (msg: string, fields: Record<string, unknown>) => void;
};

/** The issuer as configured, compared exactly (RFC 8414 §3.3); only a trailing slash is dropped for the discovery URL. */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
}

/** What engram reads of an issuer's discovery document. */
export type Discovery = { jwksUri: URL; authorizationEndpoint?: string; tokenEndpoint?: string };

function endpoint(value: unknown, what: string): URL {
  if (typeof value !== "string") throw new Error(`discovery document has no ${what}`);
  const u = new URL(value);
  if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error(`${what} is not http(s)`);
  return u;
}

export async function fetchDiscovery(issuer: string): Promise<Discovery> {
  const res = await fetch(discoveryUrl(issuer), { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: "error", headers: { accept: "application/json" } });
  if (!res.ok) throw new Error(`discovery answered HTTP ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_DISCOVERY_BYTES) throw new Error("discovery document too large");
  const doc = JSON.parse(text) as Record<string, unknown>;
  // OIDC Discovery §4.3: the document must be the issuer's own.
  if (doc.issuer !== issuer) throw new Error("discovery document names another issuer");
  return {
    jwksUri: endpoint(doc.jwks_uri, "jwks_uri"),
    ...(doc.authorization_endpoint !== undefined ? { authorizationEndpoint: endpoint(doc.authorization_endpoint, "authorization_endpoint").toString() } : {}),
    ...(doc.token_endpoint !== undefined ? { tokenEndpoint: endpoint(doc.token_endpoint, "token_endpoint").toString() } : {}),
  };
}

/** An issuer's keys as jose fetches and caches them. */
export function remoteKeys(jwksUri: URL): JWTVerifyGetKey {
  return createRemoteJWKSet(jwksUri, { cooldownDuration: JWKS_COOLDOWN_MS, cacheMaxAge: JWKS_MAX_AGE_MS, timeoutDuration: FETCH_TIMEOUT_MS });
}

export class OidcVerifier {
  readonly issuer: string;
  readonly audience: string | undefined;
  readonly #warn: OidcVerifierOptions["warn"];
  #keys: Promise<JWTVerifyGetKey> | undefined;
  #failedAt = 0;

  constructor(opts: OidcVerifierOptions) {
    this.issuer = opts.issuer;
    this.audience = opts.audience;
    this.#warn = opts.warn;
  }

  /** The issuer's key set, discovered on first use; a failed discovery is retried after a pause, not on every request. */
  #keySet(): Promise<JWTVerifyGetKey> {
    if (this.#keys === undefined) {
      if (Date.now() - this.#failedAt < DISCOVERY_RETRY_MS) return Promise.reject(new Error("discovery failed recently"));
      this.#keys = fetchDiscovery(this.issuer).then(
        (d) => remoteKeys(d.jwksUri),
        (err: unknown) => {
          this.#keys = undefined;
          this.#failedAt = Date.now();
          this.#warn?.("oidc discovery failed", { issuer: this.issuer, error: err instanceof Error ? err.message : "unknown" });
          throw err;
        },
      );
    }
    return this.#keys;
  }

  async verify(token: string): Promise<Verified> {
    let keys: JWTVerifyGetKey;
    try {
      keys = await this.#keySet();
    } catch {
      return { ok: false, failure: "unavailable" };
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.issuer,
        ...(this.audience !== undefined ? { audience: this.audience } : {}),
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ["exp"],
      });
      return { ok: true, payload };
    } catch (err) {
      return { ok: false, failure: this.#classify(err) };
    }
  }

  #classify(err: unknown): AuthFailure {
    if (err instanceof errors.JWTExpired) return "expired";
    if (err instanceof errors.JWTClaimValidationFailed) {
      if (err.claim === "aud") return "wrong_audience";
      if (err.claim === "iss") return "unknown_issuer";
      return "invalid";
    }
    if (err instanceof errors.JWKSTimeout || (err instanceof Error && !(err instanceof errors.JOSEError))) {
      // The key set could not be fetched: the server's trouble, said in the log, not the caller's token.
      this.#warn?.("oidc key set unavailable", { issuer: this.issuer, error: err instanceof Error ? err.name : "unknown" });
      return "unavailable";
    }
    return "invalid";
  }
}
