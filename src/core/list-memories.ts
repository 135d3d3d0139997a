import { argError, ruleError } from "../argerror/index.js";
import type { ListArgs } from "./args.js";
import { budgetedPage } from "./budgeted-page.js";
import { coverage, type Coverage } from "./coverage.js";
import { decodeCursor, nextCursor, type Cursor } from "./cursor.js";
import type { CoreDeps } from "./deps.js";
import { LANE_POLICY, type Lane } from "./limits.js";
import { countHidden, type RecallGateHidden } from "./recall-gate-hidden.js";
import { createdWindow, liftedQuery, recallQuery } from "./recall-query.js";
import type { Subject } from "../model/subject.js";
import { checkCount, effectiveScope } from "./validate.js";
import { compactView, fullView, type MemoryView } from "./view.js";

export type ListResult = {
  memories: MemoryView[];
  total: number;
  next_page_token: string;
  coverage?: Coverage;
  recall_gate_hidden: RecallGateHidden;
};

const VISIBILITIES = ["", "private", "shared"];

/**
 * Lists newest first. Order of checks: limit, created window, the paging
 * trio, visibility, the scope rule, the cursor. Offset mode (Connect's
 * default) returns an exact total; cursor mode (always on MCP) returns a
 * next token only after a full page.
 */
export async function listMemories(deps: CoreDeps, subject: Subject, a: ListArgs, lane: Lane): Promise<ListResult> {
  const policy = LANE_POLICY[lane];
  const requested = checkCount("limit", a.limit, deps.limits);
  const window = createdWindow(a);
  const offset = a.offset ?? 0;
  if (offset > 0 && (a.cursor_mode || (a.page_token ?? "") !== "")) throw ruleError("paging-trio-mutually-exclusive");
  if (!VISIBILITIES.includes(a.visibility ?? "")) {
    throw argError("visibility", "enum", "visibility must be one of private|shared (or empty for both)");
  }
  const scope = effectiveScope(a);
  const q = recallQuery(deps, subject, a, scope, window);
  if (a.visibility) q.visibility = a.visibility as "private" | "shared";
  const cursorMode = policy.alwaysCursor || !!a.cursor_mode || (a.page_token ?? "") !== "";
  const cursor: Cursor | undefined = a.page_token ? decodeCursor(policy.cursorField, a.page_token) : undefined;
  const limit = requested || (cursorMode ? policy.listLimitCursor : deps.limits.maxRecall);
  const page = { order: "desc" as const, limit, offset: cursorMode ? 0 : offset, cursor };

  const { records, total } = await deps.store.list(q, page);
  const lifted = await deps.store.list(liftedQuery(q), page);
  const render = (r: (typeof records)[number]) => (a.full ? fullView(r) : compactView(r, deps.limits.summaryMaxChars));
  const memories = budgetedPage(deps, records.map(render));
  const result: ListResult = {
    memories,
    total,
    next_page_token: cursorMode ? nextCursor(records, limit, cursor) : "",
    recall_gate_hidden: countHidden(lifted.records, q),
  };
  if (scope === undefined) result.coverage = await coverage(deps, subject);
  return result;
}
