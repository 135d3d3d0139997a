// Builds the shipped engram into dist/: one ES module bundle per entry point
// (the CLI and the embedding worker) and the operator console in dist/ui, with the pure-JavaScript libraries
// bundled in. A start then reads a handful of files instead of several
// hundred small modules, which is most of what a short verb costs.
// Plain JavaScript on purpose: `npm ci` runs this through `prepare`, before
// anything could compile TypeScript. Type checking is `tsc --noEmit -p .`.
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { buildConsole } from "./build-console.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

// Kept out of the bundle and loaded from node_modules at run time: native
// addons, and packages that read files next to their own code (model
// weights, WebAssembly) or that only the heavy lanes need.
export const EXTERNAL = ["better-sqlite3", "usearch", "@energetic-ai/*", "@tensorflow/*", "tsx"];

// Node built-ins that libraries import at load but use only inside calls a
// short verb may never make: connect-node's HTTP/2, TLS and compression,
// and commander's process spawning. Each costs 2-8 ms to load, about a
// seventh of an `engram get` together, so inside those libraries they
// resolve to stand-ins that load the real module on first use. Only the
// members the libraries call are stood in for; see test/cli-built-bin.test.ts.
const LAZY_BUILTINS = {
  "@connectrpc/connect-node": {
    "node:http2": { calls: ["connect"], objects: ["constants"] },
    "node:https": { calls: ["request"], objects: [] },
    "node:zlib": { calls: ["gzip", "gunzip", "brotliCompress", "brotliDecompress"], objects: [] },
  },
  commander: {
    "node:child_process": { calls: ["spawn"], objects: [] },
  },
};

function lazyBuiltinSource(name, { calls, objects }) {
  const lines = [`let real;`, `const load = () => (real ??= require(${JSON.stringify(name)}));`];
  for (const c of calls) lines.push(`export function ${c}(...args) { return load().${c}(...args); }`);
  for (const o of objects) lines.push(`export const ${o} = new Proxy({}, { get: (_, key) => load().${o}[key] });`);
  return lines.join("\n");
}

const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    b.onResolve({ filter: /^node:(http2|https|zlib|child_process)$/ }, (args) => {
      for (const [pkg, table] of Object.entries(LAZY_BUILTINS)) {
        if (table[args.path] && args.importer.includes(`/node_modules/${pkg}/`)) return { path: `${args.path}#${pkg}`, namespace: "lazy-builtin" };
      }
      return undefined;
    });
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      const [name, pkg] = args.path.split("#");
      return { contents: lazyBuiltinSource(name, LAZY_BUILTINS[pkg][name]), loader: "js" };
    });
  },
};

/**
 * The esbuild options of every bundle of engram's code: dist/ below, and
 * the sweep bench's runner (bench/rows/operator-sweeps.ts), which is timed
 * as the code the CLI ships. `entryPoints` by output name; every chunk and
 * entry lands in `outdir` itself.
 */
export function bundleOptions(entryPoints, outdir) {
  return {
    absWorkingDir: root,
    entryPoints,
    outdir,
    entryNames: "[name]",
    chunkNames: "[name]-[hash]",
    bundle: true,
    // Lazy `await import()`s of a verb stay lazy: each becomes a chunk of its own.
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    plugins: [lazyBuiltins],
    // CommonJS libraries bundled into an ES module still call require() for
    // Node built-ins; give every chunk one.
    banner: { js: 'import { createRequire as __engramRequire } from "node:module";\nconst require = __engramRequire(import.meta.url);' },
    // Whitespace and syntax only: identifiers keep their names, so stack
    // traces and anything that reads a function or class name stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    // Resolve node_modules through its symlink, not to the real folder, so
    // the output (chunk names included) does not depend on where the
    // packages physically live: two checkouts build the same bytes.
    preserveSymlinks: true,
    logLevel: "warning",
  };
}

/**
 * Builds into `dist` (the checkout's dist/ unless told otherwise; a test
 * builds a private copy). Chunk names carry a content hash, so building over
 * the old dist/ would leave yesterday's chunks lying next to today's. Build
 * into a fresh folder beside it and swap it in with renames, so a process
 * that starts meanwhile (or a second build running at once) never sees half
 * of each.
 */
export async function buildDist(dist = join(root, "dist"), { force = false } = {}) {
  // A build that would write what dist/ already holds is skipped: a second
  // `npm start` from the same checkout then never swaps dist/ out from under
  // a server still loading chunks and workers from it.
  const stamp = fingerprint();
  if (!force && existsSync(join(dist, "engram.js")) && readStamp(dist) === stamp) return false;
  const next = mkdtempSync(join(dirname(dist), ".dist-next-"));
  // mkdtemp makes its folder private (0700), and the rename would carry
  // that onto dist/: a checkout built by root could then be run by no other
  // user, a service account included. Give it the mode a plain mkdir gives
  // (0755 under the usual umask), like every folder and file esbuild writes.
  chmodSync(next, 0o777 & ~process.umask());
  try {
    // The worker pool starts `./embed-worker.js` next to its own module (and
    // a migration sweep `./sweep-worker.js`), and every chunk sits in dist/
    // itself, so the worker entries land beside them.
    await build(
      bundleOptions({ engram: "cmd/engram.ts", "embed-worker": "src/embed/embed-worker.ts", "sweep-worker": "src/store/embedded/sweep/sweep-worker.ts" }, next),
    );
    // The console ships in the same swap, so dist/ui always matches the server beside it.
    await buildConsole(join(next, "ui"));
    writeFileSync(join(next, STAMP), stamp + "\n");
    swapIn(next, dist);
  } finally {
    rmSync(next, { recursive: true, force: true });
  }
  return true;
}

/** Beside the bundles: the fingerprint of the inputs they were built from. */
const STAMP = ".build-stamp";
/** What the bundles are made of: every file here, by path and content. */
const INPUTS = ["src", "cmd", "scripts", "package-lock.json"];

function filesUnder(path) {
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch (err) {
    if (err.code === "ENOTDIR") return [path];
    if (err.code === "ENOENT") return [];
    throw err;
  }
  return entries.flatMap((e) => filesUnder(join(path, e.name)));
}

export function fingerprint() {
  const hash = createHash("sha256");
  const files = INPUTS.flatMap((p) => filesUnder(join(root, p))).sort();
  for (const f of files) hash.update(relative(root, f)).update("\0").update(readFileSync(f)).update("\0");
  return hash.digest("hex");
}

function readStamp(dist) {
  try {
    return readFileSync(join(dist, STAMP), "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Replaces `dist` with `next`; when another build swaps in between, the later swap wins. */
function swapIn(next, dist) {
  for (let attempt = 0; ; attempt++) {
    const old = `${next}-old-${attempt}`;
    try {
      renameSync(dist, old);
    } catch (err) {
      if (err.code !== "ENOENT") throw err;
    }
    rmSync(old, { recursive: true, force: true });
    try {
      renameSync(next, dist);
      return;
    } catch (err) {
      if (err.code !== "ENOTEMPTY" && err.code !== "EEXIST") throw err;
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildDist(undefined, { force: process.argv.includes("--force") });
