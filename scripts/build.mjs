// Builds the shipped engram into dist/: one ES module bundle per entry point
// (the CLI and the embedding worker) and the operator console in dist/ui, with the pure-JavaScript libraries
// bundled in. A start then reads a handful of files instead of several
// hundred small modules, which is most of what a short verb costs.
// Plain JavaScript on purpose: `npm ci` runs this through `prepare`, before
// anything could compile TypeScript. Type checking is `tsc --noEmit -p .`.
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { buildConsole } from "./build-console.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

// Kept out of the bundle and loaded from node_modules at run time: native
// addons, and packages that read files next to their own code (model
// weights, WebAssembly) or that only the heavy lanes need.
export const EXTERNAL = ["better-sqlite3", "usearch", "@energetic-ai/*", "@tensorflow/*", "tsx"];

export async function buildDist() {
  // Chunk names carry a content hash, so building over the old dist/ would
  // leave yesterday's chunks lying next to today's. Build into a fresh
  // folder and swap it in with renames, so a process that starts meanwhile
  // (or a second build running at once) never sees half of each.
  const dist = join(root, "dist");
  const next = mkdtempSync(join(root, ".dist-next-"));
  try {
    await build({
      absWorkingDir: root,
      // The worker pool starts `./embed-worker.js` next to its own module, and
      // every chunk sits in dist/ itself, so the worker entry lands beside it.
      entryPoints: { engram: "cmd/engram.ts", "embed-worker": "src/embed/embed-worker.ts" },
      outdir: next,
      entryNames: "[name]",
      chunkNames: "[name]-[hash]",
      bundle: true,
      // Lazy `await import()`s of a verb stay lazy: each becomes a chunk of its own.
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      external: EXTERNAL,
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
    });
    // The console ships in the same swap, so dist/ui always matches the server beside it.
    await buildConsole(join(next, "ui"));
    swapIn(next, dist);
  } finally {
    rmSync(next, { recursive: true, force: true });
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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildDist();
