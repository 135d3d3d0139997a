import { Command, CommanderError } from "commander";
import { EXIT } from "../src/argerror/index.js";
import { serve, StartupError } from "../src/app.js";
import { sharedLocalEmbedder } from "../src/embed/index.js";

const program = new Command()
  .name("engram")
  .description("Self-hosted long-term memory for coding agents")
  .version("0.1.0", "-v, --version")
  .exitOverride();

program
  .command("serve")
  .description("run the server: Connect, gRPC, gRPC-Web and MCP on one port, plus /healthz")
  .option("--listen-addr <host:port>", "address to listen on (env ENGRAM_LISTEN_ADDR, default 127.0.0.1:8080)")
  .action(async (opts: { listenAddr?: string }) => {
    const running = await serve({ listenAddr: opts.listenAddr });
    // Load the model before the first request pays for it.
    if (running.engram.deps.embedder === sharedLocalEmbedder()) await sharedLocalEmbedder().warmUp();
    const stop = async () => {
      await running.close();
      process.exit(EXIT.ok);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if (err instanceof StartupError) {
    process.stderr.write(`engram: ${err.message}\n`);
    process.exitCode = EXIT.usage;
  } else {
    process.stderr.write(`engram: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = EXIT.unclassified;
  }
}
