import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/**
 * How to start the worker entry `name` that sits next to the module at
 * `callerUrl`. Compiled, the entry is the sibling `<name>.js` (every chunk
 * and entry of the build sits in dist/ itself). From TypeScript sources
 * (tests and `tsx`), a worker does not inherit the parent's tsx hooks and
 * ignores `--import` in execArgv for its own entry, so a one-line bootstrap
 * registers tsx inside the worker and then imports the .ts entry. The ESM
 * build of tsx's API is used (its CommonJS build resolves its hooks wrongly
 * from an eval'd worker); the package's exports keep the two side by side.
 */
export function workerStart(callerUrl: string, name: string): { entry: string | URL; eval: boolean } {
  if (!callerUrl.endsWith(".ts")) return { entry: new URL(`./${name}.js`, callerUrl), eval: false };
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const tsxApi = pathToFileURL(createRequire(callerUrl).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
  const code =
    `import(${JSON.stringify(tsxApi)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })` +
    `.catch((err) => { process.nextTick(() => { throw err; }); });`;
  return { entry: code, eval: true };
}
