import type { RecordQuery } from "../store/index.js";
import type { RecallFilterArgs } from "./args.js";
import { nowSeconds, type CoreDeps } from "./deps.js";
import type { Subject } from "../model/subject.js";
import { checkTags, parseRfc3339 } from "./validate.js";

export type CreatedWindow = { after?: Date; before?: Date };

/** Parses the created_* window: created_after first, then created_before. */
export function createdWindow(a: Pick<RecallFilterArgs, "created_after" | "created_before">): CreatedWindow {
  return { after: parseRfc3339("created_after", a.created_after), before: parseRfc3339("created_before", a.created_before) };
}

/**
 * Builds the store query, gate included. The window is parsed here unless
 * the operation already parsed it at its own place in the check order.
 */
export function recallQuery(
  deps: CoreDeps,
  subject: Subject,
  a: RecallFilterArgs,
  scope: string | undefined,
  window: CreatedWindow = createdWindow(a),
): RecordQuery {
  const { after, before } = window;
  // A record holds no blank tag and at most maxTags of them, so a filter past either would match
  // nothing, silently: it gets the envelope a write gets for the same list.
  checkTags(a.tags, deps.limits);
  const q: RecordQuery = {
    subject,
    scope,
    gate: {
      archived: !!a.include_archived,
      superseded: !!a.include_superseded,
      scheduled: !!a.include_scheduled,
    },
    now: nowSeconds(deps),
  };
  if (a.tags && a.tags.length > 0) q.tags = a.tags;
  if (a.categories && a.categories.length > 0) q.categories = a.categories;
  if (after) q.createdAfter = after.toISOString();
  if (before) q.createdBefore = before.toISOString();
  return q;
}

/** The same query with every gate condition lifted, for counting what the gate hid. */
export function liftedQuery(q: RecordQuery): RecordQuery {
  return { ...q, gate: { archived: true, superseded: true, scheduled: true } };
}
