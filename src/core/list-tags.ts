import { GATE_ON } from "../store/index.js";
import type { ListTagsArgs } from "./args.js";
import { nowSeconds, type CoreDeps } from "./deps.js";
import type { Subject } from "../model/subject.js";
import { checkCount } from "./validate.js";

export type ListTagsResult = { tags: { tag: string; count: number }[]; more: boolean };

/**
 * Exact tag counts over the caller's readable, recall-visible records, so a
 * tag shown with count N returns N records when used as a filter.
 */
export async function listTags(deps: CoreDeps, subject: Subject, a: ListTagsArgs): Promise<ListTagsResult> {
  const limit = checkCount("limit", a.limit, deps.limits) || deps.limits.listTagsDefaultLimit;
  const scope = a.scope ? a.scope : undefined;
  const counts = await deps.store.tagCounts({ subject, scope, gate: GATE_ON, now: nowSeconds(deps) });
  const all = [...counts].map(([tag, count]) => ({ tag, count })).sort((x, y) => y.count - x.count || (x.tag < y.tag ? -1 : x.tag > y.tag ? 1 : 0));
  return { tags: all.slice(0, limit), more: all.length > limit };
}
