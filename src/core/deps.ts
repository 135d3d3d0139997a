import type { Embedder } from "../embed/embedder.js";
import type { Store } from "../store/store.js";
import type { Limits } from "./limits.js";

export type LogFields = Record<string, unknown>;
export type Logger = {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
};

/** Everything an operation may touch. Tests swap any of it. */
export type CoreDeps = {
  store: Store;
  embedder: Embedder;
  limits: Limits;
  now: () => Date;
  log: Logger;
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export function nowSeconds(deps: CoreDeps): number {
  return Math.floor(deps.now().getTime() / 1000);
}
