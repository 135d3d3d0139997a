import type { RecallFilterArgs } from "./args.js";
import { coverage, type Coverage } from "./coverage.js";
import type { CoreDeps } from "./deps.js";
import { createdWindow, recallQuery } from "./recall-query.js";
import type { Subject } from "../model/subject.js";
import { effectiveScope } from "./validate.js";

/** The filters of a list, without the view switch: a count has no rows to show. */
export type CountArgs = Omit<RecallFilterArgs, "full">;

export type CountResult = { count: number; coverage?: Coverage };

/**
 * How many records a list with the same filters would page through, without
 * reading one: the store counts them where they are kept. Checks in a
 * list's order: the created window, the scope rule, the tags.
 */
export async function countMemories(deps: CoreDeps, subject: Subject, a: CountArgs): Promise<CountResult> {
  const window = createdWindow(a);
  const scope = effectiveScope(a);
  const q = recallQuery(deps, subject, a, scope, window);
  const result: CountResult = { count: await deps.store.count(q) };
  if (scope === undefined) result.coverage = await coverage(deps, subject);
  return result;
}
