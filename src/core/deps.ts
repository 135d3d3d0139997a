import type { Embedder } from "../embed/embedder.js";
import type { Store } from "../store/index.js";
import type { Logger } from "../model/logger.js";
import type { MemoryRecord } from "../model/record.js";
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
  /**
   * Told of each record a write has just created (store, schedule,
   * supersede, and the creates of discoveries and rules), after the write
   * succeeded. The auto-summary queue listens here; it must neither wait
   * nor throw, since the write has already happened.
   */
  onCreated?: (rec: MemoryRecord) => void;
};

export function nowSeconds(deps: CoreDeps): number {
  return Math.floor(deps.now().getTime() / 1000);
}
