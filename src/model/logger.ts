export type LogFields = Record<string, unknown>;

/** Where a component reports what it did; the server's JSON logger, or silence in tests. */
export type Logger = {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
