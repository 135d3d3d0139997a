import { CommanderError, type Command } from "commander";
import pkg from "../../package.json" with { type: "json" };
import { EXIT, type ExitCode } from "../argerror/index.js";
import { CliFailure, cliLines, usageError } from "../cli-kit/index.js";
import { buildCatalog } from "./catalog.js";
import { registerCompletionCommand } from "./completion-command.js";
import { EngramCommand, helpTarget, shownName } from "./flag-errors.js";
import { refuseLegacyEnv } from "./legacy-env.js";
import {
  guardBackupTarget,
  noteVerb,
  registerOperatorBackfill,
  registerOperatorData,
  registerOperatorMigrate,
  registerOperatorPrune,
  registerOperatorReindex,
  registerOperatorRemapOwner,
  registerOperatorSessions,
  registerOperatorSpineReview,
  registerOperatorSummarize,
} from "../operator-cli/index.js";
import { registerServeCommand } from "./serve-command.js";
import { registerMcpCommand } from "./mcp-command.js";
import { registerOperationVerbs } from "./operation-verb.js";
import { OPERATION_VERBS } from "./verb-table.js";

export const BINARY = "engram";

// The build inlines package.json, so the bundle needs no path back to it.
export function packageVersion(): string {
  const version: unknown = (pkg as { version?: unknown }).version;
  return typeof version === "string" ? version : "0.0.0";
}

/**
 * Commander says "error: …" and may add lines of its own ("(Did you mean
 * search?)", a usage block); every stderr line the CLI writes starts with
 * "engram: " instead.
 */
function writeStderr(text: string): void {
  process.stderr.write(cliLines(text));
}

/**
 * The whole command tree. Settings on the root (exit override, output) are
 * inherited by every `.command()` created from it, so register functions
 * must create subcommands through `program.command`, never `addCommand`.
 */
export function buildProgram(version = packageVersion()): Command {
  const program = new EngramCommand()
    .name(BINARY)
    .description("Self-hosted long-term memory for coding agents. Run with no arguments for a JSON catalog of commands.")
    .version(version, "-v, --version", "print the version")
    .exitOverride()
    // An option after a subcommand belongs to that subcommand, so `migrate`
    // and `migrate status` can each have their own --output.
    .enablePositionalOptions()
    .configureOutput({ writeErr: writeStderr, outputError: (str, write) => write(str.replace(/^error: /, "")) })
    // Before every verb's action, as the original's PersistentPreRunE: --help
    // and --version run no action and stay available to find the way out.
    .hook("preAction", (_, action) => {
      refuseLegacyEnv();
      noteVerb(action);
    });
  registerServeCommand(program);
  registerMcpCommand(program);
  registerOperationVerbs(program, OPERATION_VERBS);
  registerOperatorMigrate(program);
  registerOperatorBackfill(program);
  registerOperatorRemapOwner(program);
  registerOperatorSummarize(program);
  registerOperatorReindex(program);
  registerOperatorPrune(program);
  registerOperatorSessions(program);
  registerOperatorSpineReview(program);
  registerOperatorData(program);
  guardBackupTarget(program);
  registerCompletionCommand(program);
  program
    .command("version")
    .summary("print the version")
    .description("Print the version, exactly as --version does.")
    .action(() => {
      process.stdout.write(version + "\n");
    });
  return program;
}

/** Maps a commander failure to an exit status; commander has already printed its message. */
export function exitForCommanderError(err: CommanderError): ExitCode {
  if (err.exitCode === 0) return EXIT.ok; // --help, help, --version
  // The exit table reserves 1 for a mistyped verb; every other parse failure is usage.
  if (err.code === "commander.unknownCommand") return EXIT.unclassified;
  return EXIT.usage;
}

/**
 * Commander's own `help <command>` reads one word, so `engram help migrate
 * revert` would print migrate's help, and it answers a word that names no
 * command with the general help and status 0. Asking the named command
 * itself for --help reaches any depth; a word that names nothing is a usage
 * error, like any other bad argument.
 */
export function helpArgs(program: Command, args: readonly string[]): string[] {
  if (args[0] !== "help") return [...args];
  const words = args.slice(1).filter((a) => !a.startsWith("-"));
  if (helpTarget(program, words) === undefined) {
    const bad = words.find((_, i) => helpTarget(program, words.slice(0, i + 1)) === undefined) ?? "";
    const name = shownName(bad);
    throw usageError(`help: unknown command${name === undefined ? "" : ` '${name}'`}; run \`engram help\` for the list of commands`);
  }
  return [...words, "--help"];
}

/** Runs one invocation; `args` excludes node and the script. Returns the exit status. */
export async function runCli(args: readonly string[]): Promise<ExitCode> {
  const version = packageVersion();
  const program = buildProgram(version);
  try {
    if (args.length === 0) {
      refuseLegacyEnv();
      process.stdout.write(JSON.stringify(buildCatalog(program, version), null, 2) + "\n");
      return EXIT.ok;
    }
    await program.parseAsync(helpArgs(program, args), { from: "user" });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CliFailure) {
      process.stderr.write(err.line + "\n");
      return err.exitCode;
    }
    if (err instanceof CommanderError) return exitForCommanderError(err);
    process.stderr.write(cliLines(err instanceof Error ? err.message : String(err)) + "\n");
    return EXIT.unclassified;
  }
}
