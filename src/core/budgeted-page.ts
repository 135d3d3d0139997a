import { enforceBudget } from "./budget.js";
import type { CoreDeps } from "./deps.js";

/** A page is returned whole or not at all; see enforceBudget. */
export function budgetedPage<T>(deps: CoreDeps, rows: T[]): T[] {
  enforceBudget(deps, rows);
  return rows;
}
