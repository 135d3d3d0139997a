import type { Logger, LogFields } from "../../src/core/index.js";

/** A logger that keeps every line, so a test can prove what was (not) logged. */
export function captureLog(): Logger & { lines: string[]; text(): string } {
  const lines: string[] = [];
  const push = (level: string) => (msg: string, fields?: LogFields) => {
    lines.push(JSON.stringify({ level, msg, ...fields }));
  };
  return { lines, info: push("info"), warn: push("warn"), error: push("error"), text: () => lines.join("\n") };
}
