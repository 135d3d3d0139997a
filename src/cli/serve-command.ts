import type { Command } from "commander";
import { usageError } from "../cli-kit/index.js";
import { EXIT } from "../argerror/index.js";

/**
 * `engram serve`. The server modules (store, embedders, native addons) are
 * imported only when this command runs, so client verbs start without them.
 */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .summary("run the server")
    .description("run the server: Connect, gRPC, gRPC-Web and MCP on one port, plus /healthz")
    .option("--listen-addr <host:port>", "address to listen on (env ENGRAM_LISTEN_ADDR, default 127.0.0.1:8080)")
    .action(async (opts: { listenAddr?: string }) => {
      const [{ checkServerConfig }, { listenAddrOf }] = await Promise.all([import("./server-config.js"), import("../server/index.js")]);
      await checkServerConfig(process.env, listenAddrOf(process.env, opts.listenAddr));
      const { serve, StartupError } = await import("../app.js");
      const { sharedLocalEmbedder } = await import("../embed/index.js");
      let running: Awaited<ReturnType<typeof serve>>;
      try {
        running = await serve({ listenAddr: opts.listenAddr });
      } catch (err) {
        if (err instanceof StartupError) throw usageError(err.message);
        // A store that cannot be reached at start is the exit table's unavailable (5), as on every operator verb.
        const { qdrantFailure } = await import("../operator-cli/index.js");
        throw qdrantFailure(err);
      }
      const stop = async (signal: NodeJS.Signals) => {
        await running.close(signal);
        process.exit(EXIT.ok);
      };
      // Before the model loads: a stop asked for while it loads is a clean, logged stop too.
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      // Load the model before the first request pays for it.
      if (running.engram.deps.embedder === sharedLocalEmbedder()) await sharedLocalEmbedder().warmUp();
    });
}
