/**
 * The server side of console sign-in through the issuer, as routes on the
 * console's path: `GET /ui/login` starts it, the redirect URL's path finishes
 * it, `GET /ui/auth` tells the page what it may offer (issuer sign-in, or
 * none needed on an anonymous server) and who the request's credential is, `POST /ui/logout` ends the session on the server (with the CSRF header, so
 * another site cannot sign the operator out). Deciding anything about a credential
 * is src/auth's; this file only speaks HTTP for it.
 */
import type { ServerResponse } from "node:http";

/** What the routes need of src/auth's ConsoleSignIn. */
export type SignInPort = {
  readonly callbackPath: string;
  begin(): Promise<{ location: string; cookies: string[] }>;
  finish(query: URLSearchParams, cookieHeader: string | string[] | undefined): Promise<{ location: string; cookies: string[] }>;
  signOut(cookieHeader: string | string[] | undefined, csrfHeader: string | string[] | undefined): Promise<string[] | undefined>;
};

type Request = { method?: string | undefined; url?: string | undefined; headers: Record<string, string | string[] | undefined> };
type Response = Pick<ServerResponse, "writeHead" | "end">;

export const SIGN_IN_PATHS = { login: "/ui/login", auth: "/ui/auth", logout: "/ui/logout" } as const;

/** True for the sign-in routes; `/ui/auth` answers even when issuer sign-in is off, so the page can ask. */
export function isSignInPath(port: SignInPort | undefined, path: string): boolean {
  return path === SIGN_IN_PATHS.auth || (port !== undefined && (path === SIGN_IN_PATHS.login || path === SIGN_IN_PATHS.logout || path === port.callbackPath));
}

function answer(res: Response, status: number, headers: Record<string, string | string[]>, body = ""): void {
  res.writeHead(status, { "cache-control": "no-store", "content-length": String(Buffer.byteLength(body)), "referrer-policy": "no-referrer", ...headers });
  res.end(body);
}

function redirect(res: Response, step: { location: string; cookies: string[] }): void {
  answer(res, 302, step.cookies.length > 0 ? { location: step.location, "set-cookie": step.cookies } : { location: step.location });
}

/**
 * What the listener knows of the caller for `/ui/auth`: whether the server
 * runs anonymous, and its answer for the request's credential, when it sent
 * one.
 */
export type SignInContext = { anonymous: boolean; caller?: { ok: true; subject: { owner: string; actor: string } } | { ok: false } | undefined };

export function serveSignIn(port: SignInPort | undefined, req: Request, res: Response, path: string, onError: (err: unknown) => void, ctx: SignInContext = { anonymous: false }): void {
  const fail = (err: unknown): void => {
    onError(err);
    answer(res, 500, { "content-type": "application/json" }, '{"error":"internal error"}');
  };
  const q = (req.url ?? "").indexOf("?");
  const query = new URLSearchParams(q < 0 ? "" : (req.url ?? "").slice(q + 1));
  if (path === SIGN_IN_PATHS.auth && req.method === "GET") {
    const c = ctx.caller;
    const session = c?.ok ? { owner: c.subject.owner, actor: c.subject.actor } : null;
    answer(res, 200, { "content-type": "application/json" }, JSON.stringify({ issuer_sign_in: port !== undefined, anonymous: ctx.anonymous, session }));
  } else if (port && path === SIGN_IN_PATHS.login && req.method === "GET") {
    port.begin().then((step) => redirect(res, step), fail);
  } else if (port && path === port.callbackPath && req.method === "GET") {
    port.finish(query, req.headers.cookie).then((step) => redirect(res, step), fail);
  } else if (port && path === SIGN_IN_PATHS.logout && req.method === "POST") {
    port.signOut(req.headers.cookie, req.headers["x-csrf-token"]).then(
      (cleared) => (cleared ? answer(res, 204, { "set-cookie": cleared }) : answer(res, 403, { "content-type": "application/json" }, '{"error":"csrf: the X-CSRF-Token header must match this session\'s engram_csrf cookie"}')),
      fail,
    );
  } else {
    answer(res, 405, { allow: path === SIGN_IN_PATHS.logout ? "POST" : "GET" });
  }
}
