/**
 * Which owner a verified token speaks for. The claims are tried in the
 * configured order and the first present one wins:
 *
 * - a winning `email` counts only with `email_verified: true` (the boolean,
 *   not the string): an address the issuer never checked names nobody;
 * - any other winning claim is stored namespaced as
 *   `<len(claim)>:<claim>:<len(value)>:<value>` (lengths in UTF-8 bytes, e.g.
 *   `3:sub:5:svc-1`), so a `sub` can never collide with an email or with a
 *   static-token owner, and the two parts can always be read back apart;
 * - no claim present: no owner, and the token is refused.
 *
 * The actor (who did it, for logs and records) is the email, else the
 * preferred username, else the subject.
 */
import type { JWTPayload } from "jose";

export const OWNER_CLAIM_ENV = "ENGRAM_OWNER_CLAIM";
export const DEFAULT_OWNER_CLAIMS = ["email"] as const;
export const SERVICE_OWNER_CLAIMS_ENV = "ENGRAM_SERVICE_AUTH_OWNER_CLAIMS";
export const DEFAULT_SERVICE_OWNER_CLAIMS = ["client_id", "azp"] as const;

/** Longer claim values are not names a person or a client is known by. */
const MAX_CLAIM_VALUE_BYTES = 512;
/** Owners are record keys and log fields: a claim value with a control character names nobody. */
const CONTROL = /[\u0000-\u001f\u007f]/;
const CLAIM_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

export type Owner = { readonly owner: string; readonly actor: string };

/** `a,b,c` → ["a","b","c"]; an unset or empty variable gives the default; a malformed name stops the start. */
export function parseClaimList(raw: string | undefined, fallback: readonly string[], envName: string): readonly string[] {
  if (raw === undefined || raw.trim() === "") return fallback;
  const names = raw
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
  names.forEach((n, i) => {
    if (!CLAIM_NAME.test(n)) throw new Error(`${envName}: entry ${i + 1} must be a claim name (letters, digits, _ . : -)`);
  });
  if (names.length === 0) throw new Error(`${envName} must name at least one claim`);
  return Object.freeze(names);
}

/** `<len(claim)>:<claim>:<len(value)>:<value>`, lengths in UTF-8 bytes. */
export function namespacedOwner(claim: string, value: string): string {
  return `${Buffer.byteLength(claim, "utf8")}:${claim}:${Buffer.byteLength(value, "utf8")}:${value}`;
}

function claimValue(payload: JWTPayload, name: string): string | undefined {
  const v = payload[name];
  if (typeof v !== "string" || v === "") return undefined;
  if (CONTROL.test(v) || Buffer.byteLength(v, "utf8") > MAX_CLAIM_VALUE_BYTES) return undefined;
  return v;
}

function actorOf(payload: JWTPayload, owner: string): string {
  const verifiedEmail = payload.email_verified === true ? claimValue(payload, "email") : undefined;
  return verifiedEmail ?? claimValue(payload, "preferred_username") ?? claimValue(payload, "sub") ?? owner;
}

/** The owner a verified payload names under `claims`, or undefined when it names none (the caller answers 401). */
export function ownerFromClaims(payload: JWTPayload, claims: readonly string[]): Owner | undefined {
  for (const claim of claims) {
    const value = claimValue(payload, claim);
    if (value === undefined) continue;
    if (claim === "email") {
      if (payload.email_verified !== true) return undefined;
      return { owner: value, actor: value };
    }
    const owner = namespacedOwner(claim, value);
    return { owner, actor: actorOf(payload, owner) };
  }
  return undefined;
}
