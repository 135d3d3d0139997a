#!/usr/bin/env node
// The shipped engram runs the JavaScript that `npm run build` (also run by
// `npm ci` through `prepare`) compiles into dist/, so no run pays for a
// TypeScript compiler. dist/ mirrors the source tree: dist/engram.js.
import { accessSync, constants } from "node:fs";

const ENTRY = new URL("../dist/engram.js", import.meta.url);

try {
  await import(ENTRY.href);
} catch (err) {
  const denied = (err?.code === "EACCES" || err?.code === "EPERM") && String(err.path ?? "").includes("/dist/");
  if (denied || (err?.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/engram.js"))) {
    process.stderr.write(`engram: ${denied ? unreadable(err.code) : whyNotFound()}\n`);
    process.exit(1);
  }
  throw err;
}

// Node reports a bundle in a folder it may not enter as missing too; only
// asking the file system tells a build never made from one made for
// another user (dist/ built by root with a private mode, say).
function whyNotFound() {
  try {
    accessSync(ENTRY, constants.R_OK);
  } catch (e) {
    if (e?.code === "EACCES" || e?.code === "EPERM") return unreadable(e.code);
  }
  return "the compiled CLI is missing (dist/engram.js); run `npm run build` first";
}

function unreadable(code) {
  return `the compiled CLI in dist/ cannot be read by this user (${code}); rebuild it with \`npm run build\`, which leaves it readable by every user, or make it readable (chmod -R a+rX dist)`;
}
