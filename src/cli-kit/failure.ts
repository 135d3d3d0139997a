import { EXIT, parse, type ExitCode } from "../argerror/index.js";
import { CONTROL_CHARACTERS } from "../model/control-characters.js";

/**
 * A failed run: the exit status and the one stderr line that explains it.
 * `line` is written as is. An envelope is always the whole line, whether the
 * CLI or the server found it, so a wrapper parses every rejection the same
 * way; the CLI's other messages carry the `engram: ` prefix.
 */
export class CliFailure extends Error {
  override readonly name = "CliFailure";
  constructor(
    readonly exitCode: ExitCode,
    readonly line: string,
  ) {
    super(line);
  }
}

/** A usage or validation failure found before any dial: exit 2. */
export function usageError(message: string): CliFailure {
  return new CliFailure(EXIT.usage, cliLine(message));
}

/** The envelope as is; any other CLI message as `engram: <message>`. */
export function cliLine(message: string): string {
  return parse(message).kind === "envelope" || message.startsWith("engram: ") ? message : `engram: ${message}`;
}

/**
 * Text bound for stderr, one `cliLine` per line: a library's multi-line
 * message (commander's "(Did you mean …?)" hint, say) keeps the prefix on
 * every line, so a wrapper can tell engram's lines from anything else.
 */
export function cliLines(text: string): string {
  const ended = text.endsWith("\n");
  const body = (ended ? text.slice(0, -1) : text)
    .split("\n")
    .map((l) => (l === "" ? l : cliLine(l)))
    .join("\n");
  return ended ? body + "\n" : body;
}

const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const EVERY_CONTROL_CHARACTER = new RegExp(CONTROL_CHARACTERS.source, "g");

/**
 * A failure's text as one line: a line break or any other control character
 * (C0, DEL, C1, U+2028, U+2029) is written as its escape (`\n`, `\u0085`).
 * A message from the server is printed as sent, but whatever a server puts
 * in it (an old one echoing an id with a line break, say) cannot add a
 * second stderr line, and so cannot forge an envelope at the start of one.
 */
export function oneLine(text: string): string {
  return text.replace(EVERY_CONTROL_CHARACTER, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
