import { ArgError, ruleError } from "../argerror/index.js";
import type { ScheduleArgs } from "./args.js";
import { parseRfc3339Instant } from "./rfc3339.js";

export type Window = { not_before?: number; not_after?: number };

/**
 * The window checks in the contract's order. Bounds are rounded outward to
 * whole seconds first (not_before down, not_after up), so a sub-second
 * not_after widens the window instead of collapsing it.
 */
export function parseWindow(a: ScheduleArgs, nowSeconds: number): Window {
  const hasBefore = (a.not_before ?? "") !== "";
  const hasAfter = (a.not_after ?? "") !== "";
  if (!hasBefore && !hasAfter) throw ruleError("schedule-window-at-least-one-bound");
  if (a.category === "discovery") throw ruleError("discovery-not-schedulable");
  const nb = parseRfc3339Instant("not_before", a.not_before);
  const na = parseRfc3339Instant("not_after", a.not_after);
  const w: Window = {};
  if (nb) w.not_before = nb.seconds;
  if (na) {
    // Any fraction past the second counts, to the nanosecond: a date carries milliseconds only.
    w.not_after = na.seconds + (na.nanos > 0 ? 1 : 0);
    if (w.not_after <= nowSeconds) {
      // The one clock-dependent check: an ordering hint in the out_of_range class.
      throw new ArgError(["not_after"], "ordering", "not_after must be in the future", {}, "out_of_range");
    }
  }
  if (w.not_before !== undefined && w.not_after !== undefined && w.not_before >= w.not_after) {
    throw ruleError("window-not-before-before-not-after");
  }
  return w;
}
