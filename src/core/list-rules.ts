import { argError } from "../argerror/index.js";
import type { MemoryRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";
import { GATE_ON } from "../store/index.js";
import type { ListRulesArgs } from "./args.js";
import { budgetedPage } from "./budgeted-page.js";
import { coverage, type Coverage } from "./coverage.js";
import { nowSeconds, type CoreDeps } from "./deps.js";
import { isRuleScope, RULE_SCOPE_SENTENCE } from "./rule-checks.js";
import { checkTags } from "./validate.js";
import { fullView, type MemoryView } from "./view.js";

export type RuleView = Pick<MemoryView, "id" | "short_id" | "summary" | "tags" | "scope" | "created_at">;
export type ListRulesResult = { rules: (RuleView | MemoryView)[]; advisory: string; coverage?: Coverage };

function ruleView(r: MemoryRecord): RuleView {
  return { short_id: r.short_id, id: r.id, summary: r.summary, tags: [...r.tags], scope: r.scope, created_at: r.created_at };
}

/** The complete rule set, oldest first, with an advisory when a scope has grown past curation. */
export async function listRules(deps: CoreDeps, subject: Subject, a: ListRulesArgs): Promise<ListRulesResult> {
  const scopes = a.scopes ?? [];
  scopes.forEach((s, i) => {
    if (!isRuleScope(s)) throw argError("scopes", "prefix", `scope at position ${i} ${RULE_SCOPE_SENTENCE}`);
  });
  checkTags(a.tags, deps.limits);
  const base = { subject, categories: ["rule"], tags: a.tags, gate: GATE_ON, now: nowSeconds(deps) };
  const page = { order: "asc" as const, limit: deps.limits.maxRecall };
  const records: MemoryRecord[] = [];
  if (scopes.length === 0) {
    records.push(...(await deps.store.list({ ...base, scopePrefix: "rule:" }, page)).records);
  } else {
    for (const scope of [...new Set(scopes)]) records.push(...(await deps.store.list({ ...base, scope }, page)).records);
  }
  const perScope = new Map<string, number>();
  for (const r of records) perScope.set(r.scope, (perScope.get(r.scope) ?? 0) + 1);
  const crowded = [...perScope].filter(([, n]) => n > deps.limits.ruleAdvisoryThreshold);
  const advisory =
    crowded.length === 0
      ? ""
      : `curation smell — ${crowded.map(([s, n]) => `${n} rules in ${s}`).join("; ")} — consider consolidating`;
  const result: ListRulesResult = {
    rules: budgetedPage(deps, records.map((r) => (a.full ? fullView(r) : ruleView(r)))),
    advisory,
  };
  if (scopes.length === 0) result.coverage = await coverage(deps, subject, "rule:");
  return result;
}
