/**
 * The composed bearer lanes. A bearer with three base64url segments is a JWT
 * and goes to the OIDC lane whose issuer it names; when humans and services
 * share an issuer, the lane whose audience the token names (so give them
 * different audiences), else the human lane. Anything else goes to the
 * static tokens. The lane that
 * verified a token decides its owner; it never falls through to another lane,
 * so a human token that names no verified email is refused rather than read
 * as a service client.
 */
import { decodeJwt } from "jose";
import { ANONYMOUS, type Subject } from "../model/subject.js";
import { admitted, refused, type AuthLane, type AuthResult } from "./auth-result.js";
import type { Authenticator } from "./authenticator.js";
import { ownerFromClaims } from "./owner-claim.js";
import type { OidcVerifier } from "./oidc-verifier.js";
import type { TokenAuth } from "./static-tokens.js";

/** Three base64url segments: the shape of a JWS compact serialization. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const BEARER = /^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i;
/** A JWT longer than this is not an access token (headers are capped well above it anyway). */
const MAX_JWT_CHARS = 16 * 1024;

export type OidcLane = { readonly lane: "oidc" | "service"; readonly verifier: OidcVerifier; readonly ownerClaims: readonly string[] };

export function isJwtShaped(token: string): boolean {
  return JWT_SHAPE.test(token);
}

function unverifiedIssuer(token: string): string | undefined {
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}

function hasAudience(token: string, audience: string): boolean {
  try {
    const aud = decodeJwt(token).aud;
    return aud === audience || (Array.isArray(aud) && aud.includes(audience));
  } catch {
    return false;
  }
}

export class BearerRouter implements Authenticator {
  readonly #oidc: readonly OidcLane[];
  readonly #static: TokenAuth;

  constructor(oidc: readonly OidcLane[], staticTokens: TokenAuth) {
    this.#oidc = oidc;
    this.#static = staticTokens;
  }

  get anonymous(): boolean {
    return this.#oidc.length === 0 && this.#static.anonymous;
  }

  get lanes(): readonly AuthLane[] {
    return [...this.#oidc.map((l) => l.lane), ...this.#static.lanes];
  }

  async resolve(header: string | undefined | null): Promise<AuthResult> {
    if (this.anonymous) return admitted(ANONYMOUS, "none");
    if (typeof header !== "string" || header.trim() === "") return refused("none", "missing");
    const token = BEARER.exec(header)?.[1];
    // Not `Bearer <token>`: no lane can read it.
    if (token === undefined) return refused("none", "invalid");
    if (this.#oidc.length > 0 && isJwtShaped(token)) return this.#resolveJwt(token);
    if (this.#static.anonymous) return refused("static", "invalid");
    return this.#static.resolve(header);
  }

  async #resolveJwt(token: string): Promise<AuthResult> {
    if (token.length > MAX_JWT_CHARS) return refused(this.#oidc[0]!.lane, "invalid");
    const iss = unverifiedIssuer(token);
    const byIssuer = this.#oidc.filter((l) => l.verifier.issuer === iss);
    if (byIssuer.length === 0) return refused(this.#oidc[0]!.lane, iss === undefined ? "invalid" : "unknown_issuer");
    // A lane whose audience the token names beats a lane that checks none; with neither, the first lane
    // verifies and says what is wrong (its audience, most likely).
    const named = byIssuer.find((l) => l.verifier.audience !== undefined && hasAudience(token, l.verifier.audience));
    const lane = named ?? byIssuer.find((l) => l.verifier.audience === undefined) ?? byIssuer[0]!;
    const verified = await lane.verifier.verify(token);
    if (!verified.ok) return refused(lane.lane, verified.failure);
    const owner = ownerFromClaims(verified.payload, lane.ownerClaims);
    // Fails closed: no owner (or an empty one) is no caller.
    if (owner === undefined || owner.owner === "") return refused(lane.lane, "invalid");
    const subject: Subject = Object.freeze({ owner: owner.owner, actor: owner.actor, anonymous: false });
    return admitted(subject, lane.lane);
  }

  toJSON(): Record<string, unknown> {
    return { anonymous: this.anonymous, lanes: this.lanes };
  }
}
