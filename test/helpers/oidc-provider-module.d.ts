/**
 * The part of oidc-provider's API the tests use. The package ships no
 * types, and its DefinitelyTyped package drags in Koa's with open ranges.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export type Configuration = Record<string, unknown> & {
    clients?: Record<string, unknown>[];
    jwks?: { keys: Record<string, unknown>[] };
    findAccount?: (ctx: unknown, id: string) => { accountId: string; claims: () => Record<string, unknown> } | undefined;
    extraTokenClaims?: (ctx: unknown, token: unknown) => Record<string, unknown> | undefined;
    formats?: { customizers?: { jwt?: (ctx: unknown, token: unknown, jwt: { header?: Record<string, unknown>; payload: Record<string, unknown> }) => void } };
  };

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
