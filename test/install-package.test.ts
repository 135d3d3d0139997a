/**
 * The package as a user gets it: `npm pack`, a global install into a
 * throwaway prefix (dependencies from the registry, native ones compiled
 * when no prebuilt binary can be fetched), then the Claude Desktop stdio
 * config from docs/mcp-clients.md started from `/`, as a desktop client
 * starts it. One slow test on purpose.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { TOOL_NAMES } from "../src/mcp/index.js";
import { documentedServers } from "./helpers/mcp-client-configs.js";

const run = promisify(execFile);
const ROOT = resolve(".");
/** The folder of the npm (and npx) beside this node, else of the first on PATH: a node taken alone from the registry ships none. */
const NPM_DIR = [dirname(process.execPath), ...(process.env.PATH ?? "").split(":")].find((d) => d !== "" && existsSync(join(d, "npx"))) ?? dirname(process.execPath);
const NPM = join(NPM_DIR, "npm");
const scratch = mkdtempSync(join(tmpdir(), "engram-install-"));

type PackEntry = { filename: string; files: { path: string }[] };

async function registryReachable(): Promise<string | undefined> {
  try {
    await run(NPM, ["ping"], { timeout: 30_000 });
    return undefined;
  } catch (err) {
    return `the npm registry cannot be reached from this machine (npm ping: ${(err as Error).message.split("\n")[0]}), so dependencies cannot install`;
  }
}

describe("the installable package", () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("packs only what runs, installs globally, and the documented Claude Desktop config run from / lists every tool and stores in the per-user data directory", async (ctx) => {
    const unreachable = await registryReachable();
    if (unreachable) ctx.skip(unreachable);

    // The suite's global setup has just built dist/; pack exactly that (running
    // `prepare` again here would rebuild dist/ under the other test files' feet).
    const packed = await run(NPM, ["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], { cwd: ROOT, timeout: 120_000, maxBuffer: 16 << 20 });
    // npm 11 prints a list of packed packages, npm 12 an object keyed by name.
    const report = JSON.parse(packed.stdout) as PackEntry[] | Record<string, PackEntry>;
    const entry = Array.isArray(report) ? report[0] : Object.values(report)[0];
    const paths = entry!.files.map((f) => f.path);
    expect(paths).toContain("bin/engram.js");
    expect(paths).toContain("package.json");
    expect(paths.some((p) => p.startsWith("dist/"))).toBe(true);
    expect(paths.filter((p) => /^(test|bench|src|cmd|\.ci)\//.test(p) || p.endsWith(".ts") || p.endsWith(".tsbuildinfo"))).toEqual([]);

    const prefix = join(scratch, "prefix");
    await run(NPM, ["install", "--global", "--no-audit", "--no-fund", join(scratch, entry!.filename)], {
      cwd: scratch,
      env: { ...process.env, npm_config_prefix: prefix },
      timeout: 540_000,
      maxBuffer: 16 << 20,
    });
    const installed = join(prefix, "bin", "engram");
    expect(realpathSync(installed).startsWith(realpathSync(join(prefix, "lib", "node_modules", "engram")))).toBe(true);

    const config = documentedServers().find((s) => s.section === "Claude Desktop" && s.kind === "stdio" && s.command === "engram");
    if (config?.kind !== "stdio") throw new Error("docs/mcp-clients.md has no Claude Desktop stdio config running engram");
    const home = join(scratch, "home");
    const xdg = join(scratch, "xdg-data");
    const env = { ...config.env, PATH: [join(prefix, "bin"), dirname(process.execPath), "/usr/bin", "/bin"].join(":"), HOME: home, XDG_DATA_HOME: xdg };
    const hadRootStore = existsSync("/.engram");

    const session = async (cwd: string) => {
      const client = new Client({ name: "install-test", version: "0" });
      await client.connect(new StdioClientTransport({ command: config.command, args: config.args, env, cwd, stderr: "pipe" }));
      return client;
    };

    const first = await session("/");
    let id: string;
    try {
      const { tools } = await first.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
      expect(tools).toHaveLength(TOOL_NAMES.length);
      const stored = await first.callTool({
        name: "store_memory",
        arguments: { content: "Installed engram keeps memories under XDG_DATA_HOME", scope: "repo:install", source: "user-said", category: "convention" },
      });
      expect(stored.isError).toBeFalsy();
      id = (stored.structuredContent as { id: string }).id;
    } finally {
      await first.close();
    }

    expect(existsSync(join(xdg, "engram", "engram.db"))).toBe(true);
    expect(existsSync("/.engram")).toBe(hadRootStore);

    // Another start, from another directory, finds the same store.
    const second = await session(scratch);
    try {
      const got = await second.callTool({ name: "get_memory", arguments: { id } });
      expect(got.isError).toBeFalsy();
      expect(got.structuredContent).toMatchObject({ id, content: "Installed engram keeps memories under XDG_DATA_HOME", owner: "me" });
    } finally {
      await second.close();
    }

    // Without a global install: npx runs the same binary from the tarball, as docs/mcp-clients.md shows.
    const npx = new Client({ name: "install-test-npx", version: "0" });
    // npm needs this process's settings (its cache, the machine's CA certificates); engram's own are left out.
    const npmEnv = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("ENGRAM_")));
    const npxEnv = { ...npmEnv, PATH: [NPM_DIR, dirname(process.execPath), "/usr/bin", "/bin"].join(":"), XDG_DATA_HOME: join(scratch, "xdg-npx") };
    await npx.connect(new StdioClientTransport({ command: "npx", args: ["-y", "--package", join(scratch, entry!.filename), "engram", "mcp"], env: npxEnv, cwd: scratch, stderr: "pipe" }),
      // npx installs the tarball's dependencies into its cache before engram can answer.
      { timeout: 300_000 },
    );
    try {
      expect((await npx.listTools()).tools).toHaveLength(TOOL_NAMES.length);
    } finally {
      await npx.close();
    }
  }, 600_000);
});

