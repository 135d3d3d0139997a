/**
 * The intended picture of src/, as data. Each top-level folder or file of
 * src/ names the others it may import. test/layering.test.ts holds every
 * import in src/ to it and holds the picture itself to the rules below;
 * test/architecture-doc.test.ts holds the map in docs/architecture.md to it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export const ROOT = new URL("../..", import.meta.url).pathname;
export const SRC = join(ROOT, "src");

export const MAY_IMPORT = {
  gen: [],
  model: [],
  argerror: ["gen"],
  auth: ["argerror", "model"],
  embed: ["argerror", "model", "worker-start.ts"],
  store: ["argerror", "model", "worker-start.ts"],
  core: ["argerror", "embed", "model", "store"],
  observe: ["argerror", "model"],
  reflection: ["gen"],
  operator: ["argerror", "core", "embed", "model", "store"],
  connect: ["argerror", "auth", "core", "gen", "model", "node-http.ts", "observe", "reflection"],
  mcp: ["argerror", "auth", "core", "model", "node-http.ts", "observe"],
  ui: ["argerror", "core", "gen"],
  "cli-kit": ["argerror", "model"],
  cli: ["app.ts", "argerror", "auth", "cli-kit", "core", "embed", "gen", "model", "operator-cli", "server"],
  "operator-cli": ["app.ts", "argerror", "auth", "cli-kit", "core", "data-dir.ts", "embed", "model", "operator", "store"],
  "app.ts": ["auth", "connect", "core", "data-dir.ts", "embed", "mcp", "observe", "server", "stderr-logger.ts", "store"],
  server: ["auth", "listen-config.ts", "node-http.ts", "ui"],
  "listen-config.ts": ["model"],
  "node-http.ts": [],
  "data-dir.ts": [],
  "stderr-logger.ts": ["model"],
  "worker-start.ts": [],
} as const satisfies Record<string, readonly string[]>;

export type Module = keyof typeof MAY_IMPORT;

/** The lanes: each adapts one surface to the core and none may lean on another. */
export const LANES = ["connect", "mcp", "cli", "ui"] as const satisfies readonly Module[];

/**
 * Packages that speak a wire format or a lane's protocol. `@connectrpc/connect`
 * itself is not among them: its `Code` and `ConnectError` are the status
 * vocabulary every layer classifies into (src/argerror maps hints onto them).
 */
export const WIRE_PACKAGES = [
  "@bufbuild/protobuf",
  "@connectrpc/connect/protocol",
  "@connectrpc/connect-node",
  "@connectrpc/connect-web",
  "@modelcontextprotocol/sdk",
  "zod",
  "commander",
  "node:http",
  "node:http2",
  "node:net",
] as const;

/** The drivers of the storage backends: only the backend that owns one may load it. */
export const BACKEND_DRIVERS = ["better-sqlite3", "node:sqlite", "@qdrant/js-client-rest", "usearch"] as const;

/**
 * Operator files that still load a backend driver themselves, each with why;
 * docs/architecture.md names them too. Moving one behind its backend's
 * operator port removes it here (test/layering.test.ts fails until it is removed).
 */
export const OPERATOR_DEBT = new Map<string, string>([
  ["src/operator/reindex-qdrant.ts", "holds a QdrantClient (type only) from the Qdrant operator port's connection"],
]);

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Every module a file imports, re-exports or loads on demand, as written; type-only imports count too. */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!);
}

/** The top-level entry of src/ a path under src/ belongs to (a folder, or a file at the top). */
export function moduleOf(pathUnderSrc: string): string {
  const [first, ...rest] = pathUnderSrc.split("/");
  return rest.length === 0 ? first!.replace(/\.js$/, ".ts") : first!;
}

/** A relative import of `file`, as a path under src/, or undefined when it leaves src/ (package.json). */
export function targetOf(file: string, spec: string): string | undefined {
  const under = relative(SRC, join(file, "..", spec));
  return under.startsWith("..") ? undefined : under;
}

/** Whether a package import is one of `names` or inside one of them. */
export function isPackage(spec: string, names: readonly string[]): boolean {
  return names.some((n) => spec === n || spec.startsWith(`${n}/`) || (n.endsWith("/protocol") && spec.startsWith(n)));
}
