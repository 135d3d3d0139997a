import { ResponseTooLargeError } from "../argerror/index.js";
import type { CoreDeps } from "./deps.js";

/**
 * Reads are budgeted in serialized bytes. A result over budget fails as a
 * whole (response_too_large) instead of being truncated into a success.
 */
export function enforceBudget(deps: CoreDeps, result: unknown): void {
  const bytes = Buffer.byteLength(JSON.stringify(result), "utf8");
  if (bytes > deps.limits.responseBudgetBytes) {
    deps.log.warn("response over budget", { bytes, budget: deps.limits.responseBudgetBytes });
    throw new ResponseTooLargeError("response over budget");
  }
}
