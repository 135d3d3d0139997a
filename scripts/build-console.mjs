// Bundles the operator console (src/ui) into one folder: index.html, app.js,
// app.css. Everything the page needs is in those files: no CDN, nothing
// fetched at run time. The vocabulary comes in through the page's imports of
// src/argerror, so the console can never disagree with the server.
// Plain JavaScript for the same reason as build.mjs: `npm ci` runs it.
import { copyFile, mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ui = fileURLToPath(new URL("../src/ui/", import.meta.url));

/** Builds the console into `outDir` (emptied first); returns each file's size. */
export async function buildConsole(outDir) {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(ui, "main.ts")],
    outfile: join(outDir, "app.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
  await copyFile(join(ui, "styles.css"), join(outDir, "app.css"));
  await copyFile(join(ui, "index.html"), join(outDir, "index.html"));
  const names = (await readdir(outDir)).sort();
  return Promise.all(names.map(async (name) => ({ name, bytes: (await stat(join(outDir, name))).size })));
}
