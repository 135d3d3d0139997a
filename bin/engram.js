#!/usr/bin/env node
// The shipped engram runs the JavaScript that `npm run build` (also run by
// `npm ci` through `prepare`) compiles into dist/, so no run pays for a
// TypeScript compiler. dist/ mirrors the source tree: dist/engram.js.
try {
  await import("../dist/engram.js");
} catch (err) {
  if (err?.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/engram.js")) {
    process.stderr.write("engram: the compiled CLI is missing (dist/engram.js); run `npm run build` first\n");
    process.exit(1);
  }
  throw err;
}
