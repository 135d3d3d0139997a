import { argError } from "../argerror/index.js";
import type { ListScheduledArgs } from "./args.js";
import { budgetedPage } from "./budgeted-page.js";
import { coverage, type Coverage } from "./coverage.js";
import { decodeCursor, nextCursor } from "./cursor.js";
import type { CoreDeps } from "./deps.js";
import { LANE_POLICY, type Lane } from "./limits.js";
import { recallQuery } from "./recall-query.js";
import type { Subject } from "../model/subject.js";
import { checkCount, effectiveScope } from "./validate.js";
import { fullView, type MemoryView } from "./view.js";

/** In lifecycle order: before the window, inside it, past it, then every windowed record. */
export const SCHEDULE_STATES = ["scheduled", "active", "expired", "all"] as const;

export type ListScheduledResult = { memories: MemoryView[]; next_page_token: string; coverage?: Coverage };

/**
 * The caller's own windowed records only (a shared record of someone else's
 * schedule is not theirs to manage), always full, newest first, cursor paged.
 */
export async function listScheduled(deps: CoreDeps, subject: Subject, a: ListScheduledArgs, lane: Lane): Promise<ListScheduledResult> {
  const policy = LANE_POLICY[lane];
  const requested = checkCount("limit", a.limit, deps.limits);
  const state = a.state || "scheduled";
  if (!(SCHEDULE_STATES as readonly string[]).includes(state)) {
    throw argError("state", "enum", `state must be one of ${SCHEDULE_STATES.join("|")}`);
  }
  const scope = effectiveScope(a);
  const q = recallQuery(deps, subject, a, scope);
  // The window is what this view is about; archived and superseded stay hidden.
  q.gate = { archived: false, superseded: false, scheduled: true };
  q.ownerOnly = true;
  q.windowState = state as (typeof SCHEDULE_STATES)[number];
  const cursor = a.page_token ? decodeCursor(policy.cursorField, a.page_token) : undefined;
  const limit = requested || policy.listLimitCursor;
  const { records } = await deps.store.list(q, { order: "desc", limit, cursor });
  const result: ListScheduledResult = {
    memories: budgetedPage(deps, records.map((r) => fullView(r))),
    next_page_token: nextCursor(records, limit, cursor),
  };
  if (scope === undefined) result.coverage = await coverage(deps, subject);
  return result;
}
