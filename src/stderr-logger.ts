import type { Logger, LogFields } from "./model/logger.js";

/**
 * JSON lines on stderr: stdout belongs to protocol frames (MCP stdio) and to
 * CLI results. Callers pass derived facts only, never request values.
 */
export function stderrLogger(component = "engram"): Logger {
  const write = (level: string, msg: string, fields?: LogFields) => {
    process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level, component, msg, ...fields }) + "\n");
  };
  return {
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}
