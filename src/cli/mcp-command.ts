import { usageError } from "../cli-kit/index.js";
import type { Command } from "commander";

/**
 * `engram mcp`: the MCP tools over stdin/stdout on the embedded store, for
 * agents that launch their memory server as a child process. stdout carries
 * protocol frames only; every diagnostic goes to stderr.
 */
export function registerMcpCommand(program: Command): void {
  program
    .command("mcp")
    .summary("serve the MCP tools over stdio")
    .description(
      "serve the 20 MCP tools over stdin/stdout on the store serve would use (ENGRAM_DATA_DIR, or the Qdrant collection when ENGRAM_QDRANT_URL is set); the session acts as ENGRAM_MCP_OWNER, or anonymous when it is unset or empty",
    )
    .action(async () => {
      const { checkServerConfig } = await import("./server-config.js");
      await checkServerConfig(process.env);
      const { serveMcpStdio, StartupError } = await import("../app.js");
      try {
        await serveMcpStdio();
      } catch (err) {
        // A start refusal (the store, the embedder) is a usage error; once serving, a failure is not.
        if (err instanceof StartupError) throw usageError(err.message);
        const { qdrantFailure } = await import("../operator-cli/index.js");
        throw qdrantFailure(err);
      }
    });
}
