/**
 * The bearer lanes a server runs with, from the environment. Each lane is
 * on when its issuer (or its tokens) is set; none set is anonymous mode. A
 * setting that cannot be used stops the start, naming the variable and never
 * its value.
 */
import type { Authenticator } from "./authenticator.js";
import { BearerRouter, type OidcLane } from "./bearer-router.js";
import { OidcVerifier, type OidcVerifierOptions } from "./oidc-verifier.js";
import { DEFAULT_OWNER_CLAIMS, DEFAULT_SERVICE_OWNER_CLAIMS, OWNER_CLAIM_ENV, SERVICE_OWNER_CLAIMS_ENV, parseClaimList } from "./owner-claim.js";
import { AUTH_TOKENS_ENV, AUTH_TOKENS_FILE_ENV, SERVICE_STATIC_TOKENS_ENV, loadTokenAuth } from "./static-tokens.js";

export const OIDC_ISSUER_ENV = "ENGRAM_OIDC_ISSUER";
export const OIDC_AUDIENCE_ENV = "ENGRAM_OIDC_AUDIENCE";
export const SERVICE_OIDC_ISSUER_ENV = "ENGRAM_SERVICE_AUTH_OIDC_ISSUER";
export const SERVICE_OIDC_AUDIENCE_ENV = "ENGRAM_SERVICE_AUTH_OIDC_AUDIENCE";

/** An http(s) URL with no query or fragment, as the variable names it; undefined when unset. */
export function urlSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`${name} must be an http(s) URL`);
  }
  if ((u.protocol !== "https:" && u.protocol !== "http:") || u.search !== "" || u.hash !== "" || u.username !== "" || u.password !== "") {
    throw new Error(`${name} must be an http(s) URL without query, fragment or credentials`);
  }
  return raw;
}

function textSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}

/** The settings that each turn a bearer lane on: with none of them set, a server runs anonymous. */
export const IDENTITY_SETTINGS = [AUTH_TOKENS_ENV, AUTH_TOKENS_FILE_ENV, SERVICE_STATIC_TOKENS_ENV, OIDC_ISSUER_ENV, SERVICE_OIDC_ISSUER_ENV] as const;

/** The issuers the OIDC lanes accept, for the protected-resource document. */
export function oidcIssuers(env: NodeJS.ProcessEnv): string[] {
  const issuers = [urlSetting(env, OIDC_ISSUER_ENV), urlSetting(env, SERVICE_OIDC_ISSUER_ENV)].filter((i): i is string => i !== undefined);
  return [...new Set(issuers)];
}

/** Every bearer lane the environment configures, composed; throws on a setting it cannot use. */
export function loadAuthenticator(env: NodeJS.ProcessEnv = process.env, warn?: OidcVerifierOptions["warn"]): Authenticator {
  // An audience alone turns no lane on: the operator meant one, so the start stops rather than run anonymous.
  for (const [audience, issuer] of [
    [OIDC_AUDIENCE_ENV, OIDC_ISSUER_ENV],
    [SERVICE_OIDC_AUDIENCE_ENV, SERVICE_OIDC_ISSUER_ENV],
  ] as const) {
    if (textSetting(env, audience) !== undefined && textSetting(env, issuer) === undefined) throw new Error(`${audience} is set but ${issuer} is not; set the issuer whose tokens carry that audience`);
  }
  const lanes: OidcLane[] = [];
  const human = urlSetting(env, OIDC_ISSUER_ENV);
  const humanClaims = parseClaimList(env[OWNER_CLAIM_ENV], DEFAULT_OWNER_CLAIMS, OWNER_CLAIM_ENV);
  if (human !== undefined) {
    lanes.push({ lane: "oidc", verifier: new OidcVerifier({ issuer: human, audience: textSetting(env, OIDC_AUDIENCE_ENV), warn }), ownerClaims: humanClaims });
  }
  const service = urlSetting(env, SERVICE_OIDC_ISSUER_ENV);
  const serviceClaims = parseClaimList(env[SERVICE_OWNER_CLAIMS_ENV], DEFAULT_SERVICE_OWNER_CLAIMS, SERVICE_OWNER_CLAIMS_ENV);
  if (service !== undefined) {
    lanes.push({ lane: "service", verifier: new OidcVerifier({ issuer: service, audience: textSetting(env, SERVICE_OIDC_AUDIENCE_ENV), warn }), ownerClaims: serviceClaims });
  }
  return new BearerRouter(lanes, loadTokenAuth(env));
}
