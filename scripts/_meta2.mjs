import { build } from "esbuild";
import { EXTERNAL } from "./build.mjs";
const r = await build({ absWorkingDir: "/work/wt/cli-bundle", entryPoints: { engram: "cmd/engram.ts" }, outdir: "/tmp/metaout", bundle: true, splitting: true, format: "esm", platform: "node", target: "node20", external: EXTERNAL, metafile: true, write: false });
const ins = r.metafile.inputs;
const target = process.argv[2];
const prev = new Map([["cmd/engram.ts", null]]); const q = ["cmd/engram.ts"];
while (q.length) { const k = q.shift(); for (const i of ins[k]?.imports ?? []) if (i.kind === "import-statement" && !prev.has(i.path)) { prev.set(i.path, k); q.push(i.path); } }
const hit = [...prev.keys()].find((k) => k.includes(target));
let c = hit; const chain = []; while (c) { chain.push(c); c = prev.get(c); } console.log(chain.reverse().join("\n  -> "));
