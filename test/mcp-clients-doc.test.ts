import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL_NAMES } from "../src/mcp/index.js";
import { DOC_URL, documentedServers, substitute } from "./helpers/mcp-client-configs.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

const TOKEN = "doc-config-token-93c1";
const servers = documentedServers();

/**
 * What a user's npx finds in their own setup: the certificates their network
 * needs and npm's cache. The runtime's own npmrc may hold neither (a Node
 * unpacked from the registry has no global npmrc), so they come from here.
 */
function npmSetup(): Record<string, string> {
  const keep = ["NODE_EXTRA_CA_CERTS", "npm_config_cafile", "npm_config_cache"];
  return Object.fromEntries(keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])));
}

describe("docs/mcp-clients.md", () => {
  let scratch: string;
  let server: TestServer;
  /** PATH as a client would have it after `npm i -g`: a bin dir holding `engram`, then node's. */
  let path: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "engram-mcp-doc-"));
    const bin = join(scratch, "bin");
    mkdirSync(bin);
    symlinkSync(resolve("bin/engram.js"), join(bin, "engram"));
    path = [bin, dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":");
    server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: `me=${TOKEN}` } });
  });
  afterAll(async () => {
    await server?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("documents stdio and Streamable HTTP for each client, every config an engram server", () => {
    // A stdio bridge to the server's URL (Claude Desktop's mcp-remote) is that client's HTTP config.
    const kinds = servers.map((s) => `${s.section}: ${s.kind === "stdio" && s.args.some((a) => a.includes(DOC_URL)) ? "http" : s.kind}`);
    for (const client of ["Claude Desktop", "Claude Code", "Cursor", "VS Code"]) {
      expect(kinds).toContain(`${client}: stdio`);
      expect(kinds).toContain(`${client}: http`);
    }
  });

  for (const s of servers) {
    it(`${s.section} (${s.kind}): ${s.source.split("\n").find((l) => /command|url|claude/.test(l))?.trim()} lists every tool`, async () => {
      const mcpUrl = `${server.url}/mcp`;
      const home = mkdtempSync(join(scratch, "home-"));
      // Started from a directory that has nothing to do with engram, as a desktop client does.
      const elsewhere = mkdtempSync(join(scratch, "cwd-"));
      const transport =
        s.kind === "stdio"
          ? new StdioClientTransport({
              command: s.command,
              args: s.args.map((a) => substitute(a, TOKEN, mcpUrl)),
              env: {
                PATH: path,
                HOME: home,
                ...(s.command === "npx" ? npmSetup() : {}),
                ...Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, substitute(v, TOKEN, mcpUrl)])),
              },
              cwd: elsewhere,
              stderr: "pipe",
            })
          : new StreamableHTTPClientTransport(new URL(substitute(s.url, TOKEN, mcpUrl)), {
              requestInit: { headers: Object.fromEntries(Object.entries(s.headers).map(([k, v]) => [k, substitute(v, TOKEN, mcpUrl)])) },
            });
      const client = new Client({ name: "doc-config", version: "0" });
      try {
        // A first npx run downloads its package before the server can answer, as it does for a user.
        await client.connect(transport, { timeout: 150_000 });
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
        expect(tools).toHaveLength(TOOL_NAMES.length);
      } finally {
        await client.close();
      }
    }, 180_000);
  }
});
