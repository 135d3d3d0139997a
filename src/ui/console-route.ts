/**
 * The server side of the operator console: static files only. The page is
 * built at install time into dist/ui (`npm run build`) and talks to the
 * same Connect service as any other client, so these routes read nothing
 * from the store and need no token; every RPC the page makes is
 * authenticated, Origin-checked and limited like any other call.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

type Response = Pick<ServerResponse, "writeHead" | "end">;

export const CONSOLE_PATH = "/ui/";

const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

// The page loads nothing but its own files and calls nothing but this origin.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * A name the build writes: one flat folder, so a request path never names a
 * directory, a dot segment or anything outside it.
 */
const FILE_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;

/**
 * dist/ui under the nearest folder above this module that has one: the same
 * answer whether this runs from src/ (tsx), dist/src/ (tsc) or a bundle in
 * dist/. Unbuilt, the working directory's dist/ui, whose absence the route
 * reports.
 */
export function defaultConsoleDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "dist", "ui");
    if (existsSync(join(candidate, "index.html"))) return candidate;
    const up = dirname(dir);
    if (up === dir) return join(process.cwd(), "dist", "ui");
    dir = up;
  }
}

/** True when the path belongs to the console (`/`, `/ui`, `/ui/…`). */
export function isConsolePath(path: string): boolean {
  return path === "/" || path === "/ui" || path.startsWith(CONSOLE_PATH);
}

/**
 * Answers a GET or HEAD for a console path: `/` and `/ui` redirect to
 * `/ui/`, `/ui/` is index.html, `/ui/<file>` one built file, anything else
 * 404. Any other method gets 405.
 */
export function serveConsole(dir: string, method: string | undefined, path: string, res: Response): void {
  if (method !== "GET" && method !== "HEAD") {
    send(res, 405, "text/plain; charset=utf-8", "method not allowed\n", method, { allow: "GET, HEAD" });
    return;
  }
  if (path === "/" || path === "/ui") {
    send(res, 302, "text/plain; charset=utf-8", `see ${CONSOLE_PATH}\n`, method, { location: CONSOLE_PATH });
    return;
  }
  const name = path === CONSOLE_PATH ? "index.html" : path.slice(CONSOLE_PATH.length);
  const m = FILE_NAME.exec(name);
  if (!m) {
    send(res, 404, "text/plain; charset=utf-8", "not found\n", method);
    return;
  }
  readFile(join(dir, name)).then(
    (body) => send(res, 200, CONTENT_TYPES[m[1]!]!, body, method),
    () => {
      const text = name === "index.html" ? "the console is not built; run: npm run build\n" : "not found\n";
      send(res, 404, "text/plain; charset=utf-8", text, method);
    },
  );
}

function send(res: Response, status: number, type: string, body: string | Buffer, method: string | undefined, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": type,
    "content-length": String(Buffer.byteLength(body)),
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "content-security-policy": CSP,
    ...extra,
  });
  res.end(method === "HEAD" ? undefined : body);
}
