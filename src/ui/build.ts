/**
 * `npm run build:ui`: bundles the console into dist/ui (index.html, app.js,
 * app.css) with esbuild. Everything the page needs is in those files: no
 * CDN, nothing fetched at run time. The vocabulary comes in through the
 * imports of src/argerror, so the page can never disagree with the server.
 */
import { copyFile, mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const HERE = fileURLToPath(new URL(".", import.meta.url));
/** Where the server looks first: dist/ui under the package root. */
export const CONSOLE_OUT_DIR = join(HERE, "..", "..", "dist", "ui");

export async function buildConsole(outDir: string = CONSOLE_OUT_DIR): Promise<{ name: string; bytes: number }[]> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(HERE, "main.ts")],
    outfile: join(outDir, "app.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
  await copyFile(join(HERE, "styles.css"), join(outDir, "app.css"));
  await copyFile(join(HERE, "index.html"), join(outDir, "index.html"));
  const names = (await readdir(outDir)).sort();
  return Promise.all(names.map(async (name) => ({ name, bytes: (await stat(join(outDir, name))).size })));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const files = await buildConsole();
  for (const f of files) process.stdout.write(`dist/ui/${f.name} ${f.bytes} bytes\n`);
}
