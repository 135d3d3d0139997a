import { argError } from "../argerror/index.js";
import { identityKey } from "../embed/embedder.js";
import { withConflictRetry } from "./conditional-write.js";
import type { ListRulesArgs, StoreRuleArgs } from "./args.js";
import { budgetedPage } from "./budgeted-page.js";
import { coverage, type Coverage } from "./coverage.js";
import { nowSeconds, type CoreDeps } from "./deps.js";
import { newRecord } from "./new-record.js";
import { ownedOrAbsent } from "./replace-target.js";
import { checkRuleSummary } from "./rule-checks.js";
import type { Subject } from "../model/subject.js";
import { checkContentBytes, checkTags, requireString } from "./validate.js";
import { fullView, type MemoryView } from "./view.js";
import { createRecord, embedRecord, type WriteResult } from "./write-record.js";
import type { MemoryRecord } from "../model/record.js";
import { GATE_ON } from "../store/store.js";

const RULE_PREFIXES = ["rule:repo:", "rule:project:"] as const;
const RULE_SCOPE_SENTENCE = "must be rule:repo:<repo> or rule:project:<project>";

export function isRuleScope(scope: string): boolean {
  return RULE_PREFIXES.some((p) => scope.startsWith(p) && scope.length > p.length);
}

/**
 * A rule is a standing instruction: always shared, summarized by its author,
 * never superseded or made private; deleting it is the only retirement.
 */
export async function storeRule(deps: CoreDeps, subject: Subject, a: StoreRuleArgs): Promise<WriteResult> {
  const content = requireString("content", a.content);
  checkContentBytes(content, deps.limits.maxRuleContentBytes);
  const scope = requireString("scope", a.scope);
  if (!isRuleScope(scope)) throw argError("scope", "prefix", `scope ${RULE_SCOPE_SENTENCE}`);
  checkRuleSummary(a.summary, deps.limits);
  checkTags(a.tags, deps.limits);

  // An id that names the caller's own record replaces it in place, as
  // store_discovery does: a create would find the id taken. The replace is
  // conditional on the revision read, so a lost race reads the target again
  // (changed, deleted or just created); the text is embedded once.
  let vector: Float32Array | undefined;
  return withConflictRetry([a.id ?? ""], async () => {
    const target = a.id ? await ownedOrAbsent(deps, subject, a.id) : undefined;
    const rec = newRecord({ ...a, source: "user-said", category: "rule" }, subject, deps.now(), {
      visibility: "shared",
      summary_source: "client",
    });
    vector ??= await embedRecord(deps, rec);
    rec.embedder_identity = identityKey(deps.embedder.identity);
    if (target) rec.id = target.id;
    if (!target?.existing) return createRecord(deps, rec, vector);
    rec.short_id = target.existing.short_id;
    rec.created_at = target.existing.created_at;
    rec.revision = target.existing.revision;
    await deps.store.replace(rec, vector);
    return { id: rec.id, short_id: rec.short_id };
  });
}

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
