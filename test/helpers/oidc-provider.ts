/**
 * A real OpenID Provider (oidc-provider, a certified implementation) on a
 * loopback port, for the OIDC lanes' tests. It issues JWT access tokens for
 * one resource through the authorization-code flow (walked here as a browser
 * would, through the provider's development login and consent pages) and
 * the client-credentials grant. `tweakNext` edits the claims of the next
 * token before the provider signs it, so the negative cases are real tokens
 * of this issuer; `rotate` restarts the issuer with a new signing key.
 */
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider, { type Configuration } from "oidc-provider";

export type Account = { email?: string; email_verified?: boolean; preferred_username?: string };
export type ClaimsTweak = (payload: Record<string, unknown>) => void;

export type TestIssuer = {
  issuer: string;
  /** The `aud` of human tokens (the MCP resource) and of service tokens. */
  audience: string;
  serviceAudience: string;
  /** The console's confidential client. */
  consoleClient: { id: string; secret: string };
  humanToken(account: string): Promise<string>;
  serviceToken(clientId: string): Promise<string>;
  /** The next token issued gets these edits before it is signed. */
  tweakNext(tweak: ClaimsTweak): void;
  /** Restarts the issuer with a new signing key first in its key set (the old one still published). */
  rotate(): Promise<void>;
  /** The signing key ids, newest first. */
  kids(): string[];
  close(): Promise<void>;
};

export const SERVICE_CLIENTS = { "svc-indexer": "svc-indexer-secret", "svc-empty": "svc-empty-secret" } as const;
const TEST_REDIRECT = "http://127.0.0.1/test-callback";

async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
}

/** Humans and services get tokens for different audiences, as an operator sets them up to share one issuer. */
export async function startTestIssuer(opts: { accounts: Record<string, Account>; audience: string; serviceAudience: string; consoleRedirects?: string[] }): Promise<TestIssuer> {
  let current: Provider | undefined;
  const server = http.createServer((req, res) => {
    if (!current) {
      res.writeHead(503).end();
      return;
    }
    current.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const consoleClient = { id: "engram-console", secret: "engram-console-secret-0123456789" };
  const keys: JWK[] = [await signingKey("key-1")];
  let tweak: ClaimsTweak | undefined;

  const configuration = (): Configuration => ({
    clients: [
      {
        client_id: consoleClient.id,
        client_secret: consoleClient.secret,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        redirect_uris: [TEST_REDIRECT, ...(opts.consoleRedirects ?? [])],
        token_endpoint_auth_method: "client_secret_basic",
      },
      ...Object.entries(SERVICE_CLIENTS).map(([client_id, client_secret]) => ({
        client_id,
        client_secret,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic" as const,
      })),
    ],
    jwks: { keys: [...keys] },
    // ID tokens carry the email claims, as most providers send them; the console reads its owner there.
    conformIdTokenClaims: false,
    ttl: { AccessToken: 300, ClientCredentials: 300, IdToken: 300, Interaction: 600, Session: 600, Grant: 600 },
    cookies: { keys: ["test-cookie-key-0123456789"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["preferred_username"] },
    findAccount: (_ctx, id) => (opts.accounts[id] ? { accountId: id, claims: () => ({ sub: id, ...opts.accounts[id] }) } : undefined),
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => opts.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, _indicator: string, client: { clientId: string }) => ({
          scope: "memory",
          audience: client.clientId in SERVICE_CLIENTS ? opts.serviceAudience : opts.audience,
          accessTokenFormat: "jwt",
          accessTokenTTL: 300,
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
    // Real providers put the user's email in access tokens by configuration; this one does it here.
    extraTokenClaims: (_ctx, token) => {
      const id = (token as { accountId?: string }).accountId;
      return id ? { ...opts.accounts[id] } : undefined;
    },
    formats: {
      customizers: {
        jwt: (_ctx, _token, jwt) => {
          const t = tweak;
          tweak = undefined;
          t?.(jwt.payload as Record<string, unknown>);
        },
      },
    },
  });
  const boot = (): void => {
    current = new Provider(issuer, configuration());
    // The provider logs its development-only warnings once; the tests do not need them.
    current.on("server_error", () => {});
  };
  boot();

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
  const tokenRequest = async (auth: string, body: Record<string, string>): Promise<string> => {
    const r = await fetch(`${issuer}/token`, { method: "POST", headers: { authorization: auth, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body) });
    const json = (await r.json()) as { access_token?: string; error?: string; error_description?: string };
    if (!json.access_token) throw new Error(`token endpoint: ${json.error}: ${json.error_description}`);
    return json.access_token;
  };

  /** Walks the authorization-code flow with PKCE through the provider's own pages, as a browser would. */
  const humanToken = async (account: string): Promise<string> => {
    const jar = new Map<string, string>();
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const request = async (url: string, init: RequestInit = {}): Promise<Response> => {
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
      const r = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as Record<string, string>), cookie } });
      for (const c of r.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const eq = pair!.indexOf("=");
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      return r;
    };
    const q = new URLSearchParams({ client_id: consoleClient.id, response_type: "code", redirect_uri: TEST_REDIRECT, scope: "openid email profile", state: "s", code_challenge: challenge, code_challenge_method: "S256", resource: opts.audience });
    let r = await request(`${issuer}/auth?${q}`);
    for (let step = 0; step < 8; step++) {
      const location = new URL(r.headers.get("location") ?? "", issuer).toString();
      if (location.startsWith(TEST_REDIRECT)) {
        const code = new URL(location).searchParams.get("code");
        if (!code) throw new Error(`no code: ${location}`);
        return tokenRequest(basic(consoleClient.id, consoleClient.secret), { grant_type: "authorization_code", code, redirect_uri: TEST_REDIRECT, code_verifier: verifier, resource: opts.audience });
      }
      if (location.includes("/interaction/")) {
        const page = await (await request(location)).text();
        const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1] ?? "consent";
        r = await request(location, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ prompt, login: account, password: "any" }) });
      } else {
        r = await request(location);
      }
    }
    throw new Error("the authorization flow did not end at the redirect");
  };

  return {
    issuer,
    audience: opts.audience,
    serviceAudience: opts.serviceAudience,
    consoleClient,
    humanToken,
    serviceToken: (clientId) => tokenRequest(basic(clientId, SERVICE_CLIENTS[clientId as keyof typeof SERVICE_CLIENTS]), { grant_type: "client_credentials", resource: opts.audience }),
    tweakNext: (t) => {
      tweak = t;
    },
    rotate: async () => {
      keys.unshift(await signingKey(`key-${keys.length + 1}`));
      boot();
    },
    kids: () => keys.map((k) => k.kid!),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
