import type { SearchDiscoveriesArgs } from "./args.js";
import { coverage, type Coverage } from "./coverage.js";
import { nowSeconds, type CoreDeps } from "./deps.js";
import { LANE_POLICY, type Lane } from "./limits.js";
import { candidateK } from "./rank.js";
import { rankRecall } from "./rank-recall.js";
import { softTableAhead, type SoftTable } from "./soft-table.js";
import { termWeightsOf, wordsOf } from "./term-weights.js";
import { distinctTerms } from "../model/lexical-terms.js";
import { checkDiscoveryKind, DISCOVERY_PREFIX } from "./store-discovery.js";
import type { ScoredRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";
import { checkCount, checkQuery, effectiveScope } from "./validate.js";
import { fullView, type MemoryView } from "./view.js";
import { enforceBudget } from "./budget.js";
import { GATE_ON } from "../store/index.js";
import { embedQuery, whileEmbedding } from "./embed-traced.js";
import { traced } from "../model/trace-hook.js";

export type SearchDiscoveriesResult = { discoveries: MemoryView[]; coverage?: Coverage };

/** Discovery recall always returns full records: the citations are the point. */
export async function searchDiscoveries(deps: CoreDeps, subject: Subject, a: SearchDiscoveriesArgs, lane: Lane): Promise<SearchDiscoveriesResult> {
  const policy = LANE_POLICY[lane];
  const query = checkQuery(a.query, deps.limits);
  const k = checkCount("k", a.k, deps.limits) || policy.discoveryK;
  // Blank is empty, as effectiveScope reads it: on a lane whose empty scope spans, a blank one must not be refused naming cross_spine.
  const crossSpine = a.cross_spine || (policy.discoveryEmptyScopeSpans && (a.scope ?? "").trim() === "");
  const scope = effectiveScope({ scope: a.scope, cross_spine: crossSpine });
  checkDiscoveryKind(a.kind, false);
  const q = { subject, scope, scopePrefix: DISCOVERY_PREFIX, categories: ["discovery"], kind: a.kind || undefined, gate: GATE_ON, now: nowSeconds(deps) };
  const vector = embedQuery(deps.embedder, query);
  const terms = distinctTerms(query);
  const weighing = termWeightsOf(deps.store, terms, wordsOf([query]));
  const soft = softTableAhead(deps.embedder, query, weighing);
  const [found, weights, spanned, table] = await whileEmbedding<[ScoredRecord[], Map<string, number>, Coverage | undefined, SoftTable]>(vector, [
    deps.store.search(q, vector, query, candidateK(k), soft.early),
    weighing,
    scope === undefined ? coverage(deps, subject, DISCOVERY_PREFIX) : Promise.resolve(undefined),
    soft.table,
  ]);
  const [hits] = await traced("engram.rank", () => rankRecall(deps.store, deps.embedder, query, terms, weights, [found], k, table), {
    attributes: { "engram.rank.candidates": found.length, "engram.rank.k": k },
  });
  const result: SearchDiscoveriesResult = { discoveries: hits.map((h) => fullView(h.record, h.score)) };
  if (spanned !== undefined) result.coverage = spanned;
  enforceBudget(deps, result);
  return result;
}
