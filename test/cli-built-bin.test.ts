/**
 * The shipped bin, end to end: `bin/engram.js` runs the bundle that
 * `npm run build` writes into dist/ (the suite's global setup builds it),
 * never TypeScript, and each verb loads only what it needs. A module-load
 * hook records every module the child loads, so these tests see exactly
 * what a user's process loads.
 */
import { execFileSync, spawn } from "node:child_process";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { TOOL_NAMES } from "../src/mcp/index.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const PKG = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };

type Run = { code: number | null; stdout: string; stderr: string };

let tmp = "";
let register = "";

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
  return { ...env, ...extra };
}

function run(args: readonly string[], opts: { env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: opts.cwd ?? REPO, env: childEnv(opts.env), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? "");
  });
}

/** Runs the bin with the load hook; returns the run and every module URL it loaded. */
async function traced(args: readonly string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<Run & { loaded: string[] }> {
  const log = join(tmp, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, "");
  const r = await run(["--import", register, "bin/engram.js", ...args], { ...opts, env: { ...opts.env, ENGRAM_TEST_LOAD_LOG: log } });
  return { ...r, loaded: readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

const HEAVY = ["@modelcontextprotocol/", "@energetic-ai/", "@tensorflow/", "better-sqlite3", "usearch", "hnswlib-node", "/tsx/"];

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "engram-built-bin-"));
  const hooks = join(tmp, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (process.env.ENGRAM_TEST_LOAD_LOG) appendFileSync(process.env.ENGRAM_TEST_LOAD_LOG, url + "\\n");
  return next(url, context);
}
`,
  );
  register = join(tmp, "register.mjs");
  // Node's own modules never reach the hook: the exit handler lists the ones this run loaded, as "node:internal/…".
  writeFileSync(
    register,
    `import { appendFileSync } from "node:fs";
import { register } from "node:module";
register(${JSON.stringify(pathToFileURL(hooks).href)});
process.on("exit", () => {
  const log = process.env.ENGRAM_TEST_LOAD_LOG;
  if (log) appendFileSync(log, process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => "node:" + m.slice(13) + "\\n").join(""));
});
`,
  );
});

describe("the built engram bin", { timeout: 120_000 }, () => {
  it("runs the dist/ bundle and never a TypeScript file", async () => {
    const r = await traced(["version"]);
    expect(r).toMatchObject({ code: EXIT.ok, stdout: `${PKG.version}\n`, stderr: "" });
    const files = r.loaded.filter((u) => u.startsWith("file:"));
    expect(files).toContain(pathToFileURL(join(REPO, "dist", "engram.js")).href);
    const dist = pathToFileURL(join(REPO, "dist")).href + "/";
    expect(files.filter((u) => !u.startsWith(dist) && !u.endsWith("/bin/engram.js"))).toEqual([]);
    expect(r.loaded.filter((u) => /\.[cm]?ts$/.test(u))).toEqual([]);
  });

  it("engram get against an unreachable server loads no MCP SDK, model, SQLite, vector index, Node's fetch, HTTP/2, TLS, compression or spawning, and says why it failed", async () => {
    const r = await traced(["get", "0000000000", "--server", "http://127.0.0.1:1"]);
    expect(r.code).toBe(EXIT.unavailable);
    expect(r.stderr).toBe("engram: connect ECONNREFUSED 127.0.0.1:1\n");
    expect(r.loaded.filter((u) => HEAVY.some((h) => u.includes(h)))).toEqual([]);
    // The exit handler did report Node's own modules: the HTTP client is among them.
    expect(r.loaded).toContain("node:_http_client");
    expect(r.loaded.filter((u) => u === "node:sqlite")).toEqual([]);
    // Node 24 loads its own fetch (undici, which loads TLS, HTTP/2 and compression) at every start of
    // this bundle, even `engram version`; only on Node 20 does the list tell engram's own part.
    const runtimeLoadsFetch = !process.versions.node.startsWith("20.");
    if (!runtimeLoadsFetch) expect(r.loaded.filter((u) => u.includes("undici"))).toEqual([]);
    // Loaded by the libraries only when used: HTTP/2, TLS, compression, spawning (scripts/build.mjs, LAZY_BUILTINS).
    const lazy = runtimeLoadsFetch ? ["node:https", "node:child_process"] : ["node:http2", "node:https", "node:tls", "node:zlib", "node:child_process"];
    expect(r.loaded.filter((u) => lazy.includes(u))).toEqual([]);
    // Commander, Connect and protobuf come from the bundle, not from node_modules.
    expect(r.loaded.filter((u) => u.includes("/node_modules/"))).toEqual([]);
  });

  it("engram get --insecure over https reaches a TLS server (the lazily loaded https) and prints its Connect answer", async () => {
    const key = join(tmp, "tls-key.pem");
    const cert = join(tmp, "tls-cert.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1"], { stdio: "ignore" });
    let asked = "";
    const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      asked = req.url ?? "";
      req.resume();
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "not_found", message: "not found: 0000000000" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const r = await traced(["get", "0000000000", "--insecure", "--server", `https://127.0.0.1:${port}`]);
      expect(asked).toBe("/engram.v1.EngramService/GetMemory");
      expect({ code: r.code, lines: r.stderr.split("\n").filter(Boolean) }).toEqual({
        code: EXIT.not_found,
        lines: ["engram: WARNING: TLS certificate verification is disabled (--insecure); do not use against an untrusted network", "not found: 0000000000"],
      });
      expect(r.loaded).toContain("node:https");
    } finally {
      server.close();
    }
  });

  it("engram mcp answers tools/list without loading the embedding model", async () => {
    const frames = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "0" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ];
    const r = await traced(["mcp"], { env: { ENGRAM_DATA_DIR: join(tmp, "mcp-data") }, input: frames.map((f) => JSON.stringify(f)).join("\n") + "\n" });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const answers = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { id: number; result: { tools?: unknown[] } });
    expect(answers.find((a) => a.id === 2)?.result.tools).toHaveLength(TOOL_NAMES.length);
    expect(r.loaded.filter((u) => u.includes("@energetic-ai/") || u.includes("@tensorflow/"))).toEqual([]);
  });

  it("a bin without a build says how to make one", async () => {
    const bare = join(tmp, "unbuilt");
    mkdirSync(join(bare, "bin"), { recursive: true });
    copyFileSync(join(REPO, "bin", "engram.js"), join(bare, "bin", "engram.js"));
    writeFileSync(join(bare, "package.json"), JSON.stringify({ type: "module" }));
    const r = await run([join(bare, "bin", "engram.js"), "version"], { cwd: bare });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "engram: the compiled CLI is missing (dist/engram.js); run `npm run build` first\n" });
  });
});
