import { EXIT, type ExitCode } from "../argerror/index.js";

/**
 * A failed run: the exit status and the one stderr line that explains it.
 * `line` is written as is; the CLI's own messages carry the `engram: `
 * prefix, a server's rejection is passed through verbatim without it.
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

/** A usage or validation failure found before any dial: exit 2, `engram: <message>`. */
export function usageError(message: string): CliFailure {
  return new CliFailure(EXIT.usage, `engram: ${message}`);
}
