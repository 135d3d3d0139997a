import { runCli } from "../src/cli/program.js";

// A reader that stops early (`engram list … | head -1`) closes the pipe; that
// is not a failure of the command, so leave quietly instead of crashing.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

// The CLI proper lives in src/cli; this entry point hands it argv and sets
// the exit status without cutting stdout short.
process.exitCode = await runCli(process.argv.slice(2));
