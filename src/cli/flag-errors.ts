import { Command, type Option } from "commander";
import { declaredExpectation, parseUint } from "../cli-kit/index.js";
import { argError, fieldNotDecodable } from "../argerror/index.js";

/**
 * Commander words its parse failures for a terminal and quotes what was
 * typed: `option '--k <uint>' argument 'ZZMARK' is invalid`. A value typed
 * on a command line can be a secret, so every such message is rebuilt here
 * from the option's declaration alone: the flag's name and what it expects.
 * A flag that stands for a request field gets the envelope the Connect JSON
 * lane gives the same bad value, so a wrapper parses both the same way; an
 * operator verb's flag gets an envelope naming the flag.
 */

/** The flags every client verb shares; a client verb's other flags stand for request fields. */
const CLIENT_FLAGS = new Set(["--server", "--token-file", "--output", "--timeout", "--insecure"]);

/**
 * A word the caller typed where a name belongs (a verb, a flag) is repeated
 * only when it reads as a name, as the MCP lane repeats an unknown argument
 * name: short and plain, so it cannot be a pasted secret or a blob.
 */
const PLAIN_NAME = /^-{0,2}[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function shownName(word: string): string | undefined {
  return PLAIN_NAME.test(word) ? word : undefined;
}

function isClientVerb(cmd: Command): boolean {
  return cmd.options.some((o) => o.long === "--server");
}

function isUint(o: Option): boolean {
  return (o.parseArg as unknown) === parseUint;
}

function expectation(o: Option): string {
  const declared = declaredExpectation(o);
  if (declared !== undefined) return declared;
  if (o.argChoices) return `one of ${o.argChoices.join("|")}`;
  if (isUint(o)) return "a non-negative integer";
  return "a valid value";
}

/**
 * The field a flag stands for on a client verb, in the proto's snake_case;
 * undefined for the connection flags and for every flag of the other verbs.
 */
function requestField(cmd: Command, o: Option): string | undefined {
  if (!isClientVerb(cmd) || o.long === undefined || CLIENT_FLAGS.has(o.long)) return undefined;
  return o.long.slice(2).replace(/-/g, "_");
}

function badValue(cmd: Command, message: string): string {
  for (const o of cmd.options) {
    const viaFlag = message.startsWith(`error: option '${o.flags}' argument `);
    const viaEnv = o.envVar !== undefined && message.startsWith(`error: environment variable '${o.envVar}' argument `);
    if (!viaFlag && !viaEnv) continue;
    const field = viaEnv ? undefined : requestField(cmd, o);
    if (field !== undefined && (isUint(o) || o.argChoices)) {
      const hint = o.argChoices ? "enum" : "format";
      return fieldNotDecodable(field, hint, `${field} must be ${expectation(o)}`).message;
    }
    // An operator verb's flag is named as its field (the flag without its dashes), as its other refusals name it.
    if (!viaEnv && !isClientVerb(cmd) && o.long !== undefined) return argError(o.long.slice(2), o.argChoices ? "enum" : "format", `${o.long} must be ${expectation(o)}`).message;
    return `error: ${viaEnv ? o.envVar : (o.long ?? o.short)} must be ${expectation(o)}`;
  }
  return "error: a flag was given a value it does not accept";
}

/**
 * `error: unknown option '<word>'` plus commander's optional "(Did you mean
 * …?)" line, which is kept on the same line (` (did you mean search?)`): a
 * failure is one stderr line.
 */
function splitQuoted(message: string, prefix: string): { word: string; suggestion: string } {
  const rest = message.slice(prefix.length);
  const cut = rest.indexOf("'\n(");
  if (cut < 0) return { word: rest.replace(/'$/, ""), suggestion: "" };
  const hint = rest.slice(cut + 2).trim().replace(/^\(Did you mean/, "(did you mean");
  return { word: rest.slice(0, cut), suggestion: ` ${hint}` };
}

function unknownOption(cmd: Command, message: string): string {
  const { word, suggestion } = splitQuoted(message, "error: unknown option '");
  const eq = word.indexOf("=");
  const name = eq >= 0 ? word.slice(0, eq) : word;
  // `--full=yes`: a known flag reaches here with a value only when it takes none.
  const known = eq >= 0 ? cmd.options.find((o) => o.long === name || o.short === name) : undefined;
  if (known) return `error: ${known.long ?? name} takes no value`;
  const shown = shownName(name);
  return shown === undefined ? `error: unknown option${suggestion}` : `error: unknown option '${shown}'${suggestion}`;
}

function unknownCommand(message: string): string {
  const { word, suggestion } = splitQuoted(message, "error: unknown command '");
  const shown = shownName(word);
  return shown === undefined ? `error: unknown command${suggestion}` : `error: unknown command '${shown}'${suggestion}`;
}

export function rewriteParseError(cmd: Command, message: string, code: string | undefined): string {
  switch (code) {
    case "commander.invalidArgument":
      return badValue(cmd, message);
    case "commander.unknownOption":
      return unknownOption(cmd, message);
    case "commander.unknownCommand":
      return unknownCommand(message);
    default:
      return message;
  }
}

/**
 * The CLI's command class. Subcommands are made through `createCommand`,
 * so every level of the tree reports its parse failures through the same
 * rewrite.
 */
export class EngramCommand extends Command {
  override createCommand(name?: string): Command {
    return new EngramCommand(name);
  }

  override error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    if (this.strayWordIsCommand(errorOptions?.code)) return (this as unknown as { unknownCommand(): never }).unknownCommand();
    return super.error(rewriteParseError(this, message, errorOptions?.code), errorOptions);
  }

  /**
   * A command with subcommands and an action of its own (`migrate`) would
   * read a mistyped subcommand (`migrate stauts`) as an extra argument, exit
   * 2, where a group without an action (`spine-review scna`) says unknown
   * command, exit 1, with a suggestion. The first word after the command is
   * answered as the group answers it, even when an unknown flag follows it.
   */
  private strayWordIsCommand(code: string | undefined): boolean {
    if (this.commands.length === 0) return false;
    const first = this.args[0];
    if (code === "commander.excessArguments") return true;
    return code === "commander.unknownOption" && first !== undefined && !first.startsWith("-");
  }
}

/**
 * The command `engram help <words…>` names, or undefined when a word names
 * no subcommand at its level: asking for help on a command that does not
 * exist is a usage error, not a request for the general help.
 */
export function helpTarget(program: Command, words: readonly string[]): Command | undefined {
  let at: Command | undefined = program;
  for (const w of words) {
    at = at.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (at === undefined) return undefined;
  }
  return at;
}
