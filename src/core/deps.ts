import type { Embedder } from "../embed/embedder.js";
import type { Store } from "../store/index.js";
import type { Logger } from "../model/logger.js";
import type { Limits } from "./limits.js";

export type { Logger, LogFields } from "../model/logger.js";
export { silentLogger } from "../model/logger.js";

/** Everything an operation may touch. Tests swap any of it. */
export type CoreDeps = {
  store: Store;
  embedder: Embedder;
  limits: Limits;
  now: () => Date;
  log: Logger;
};

export function nowSeconds(deps: CoreDeps): number {
  return Math.floor(deps.now().getTime() / 1000);
}
