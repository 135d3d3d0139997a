import type { RecordQuery } from "../store/store.js";
import type { RecallFilterArgs } from "./args.js";
import { nowSeconds, type CoreDeps } from "./deps.js";
import type { Subject } from "./subject.js";
import { parseRfc3339 } from "./validate.js";

/** Validates the created_* window and builds the store query, gate included. */
export function recallQuery(
  deps: CoreDeps,
  subject: Subject,
  a: RecallFilterArgs,
  scope: string | undefined,
): RecordQuery {
  const after = parseRfc3339("created_after", a.created_after);
  const before = parseRfc3339("created_before", a.created_before);
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
