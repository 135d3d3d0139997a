/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for MCP clients: with
 * `ENGRAM_MCP_RESOURCE_URL` set, the server publishes which authorization
 * servers issue tokens for it, and every 401 points at that document, so a
 * client can find its way to a token from a bare 401. The MCP authorization
 * spec asks HTTP transports for exactly this.
 */
import { urlSetting, oidcIssuers } from "./auth-config.js";

export const MCP_RESOURCE_URL_ENV = "ENGRAM_MCP_RESOURCE_URL";
export const RESOURCE_METADATA_ENV = "ENGRAM_OIDC_RESOURCE_METADATA";
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

export type ProtectedResourceDocument = {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: ["header"];
  resource_name: string;
};

export type ProtectedResource = {
  /** The URL a 401's `resource_metadata` names (the override, else this server's own document), if any. */
  readonly metadataUrl: string | undefined;
  /** The document this server serves, when the resource URL is set. */
  readonly document: ProtectedResourceDocument | undefined;
  /** The paths it is served at: the root form and, for a resource with a path, RFC 9728 §3.1's suffixed form. */
  readonly paths: readonly string[];
};

export function protectedResourceFromEnv(env: NodeJS.ProcessEnv = process.env): ProtectedResource {
  const resource = urlSetting(env, MCP_RESOURCE_URL_ENV);
  const override = urlSetting(env, RESOURCE_METADATA_ENV);
  if (resource === undefined) return { metadataUrl: override, document: undefined, paths: [] };
  const u = new URL(resource);
  const suffix = u.pathname === "/" ? "" : u.pathname.replace(/\/+$/, "");
  const paths = suffix === "" ? [PROTECTED_RESOURCE_PATH] : [PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}${suffix}`];
  return {
    metadataUrl: override ?? `${u.origin}${paths[paths.length - 1]}`,
    document: {
      resource,
      authorization_servers: oidcIssuers(env),
      bearer_methods_supported: ["header"],
      resource_name: "engram",
    },
    paths,
  };
}
