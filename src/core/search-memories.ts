import type { SearchArgs } from "./args.js";
import { coverage, type Coverage } from "./coverage.js";
import type { CoreDeps } from "./deps.js";
import { LANE_POLICY, type Lane } from "./limits.js";
import { countHidden, type RecallGateHidden } from "./recall-gate-hidden.js";
import { liftedQuery, recallQuery } from "./recall-query.js";
import { candidateK } from "./rank.js";
import { rankRecall } from "./rank-recall.js";
import { softTableAhead, type SoftTable } from "./soft-table.js";
import { termWeightsOf, wordsOf } from "./term-weights.js";
import { distinctTerms } from "../model/lexical-terms.js";
import { traced } from "../model/trace-hook.js";
import type { ScoredRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";
import { checkCount, checkQuery, effectiveScope } from "./validate.js";
import { compactView, fullView, type MemoryView } from "./view.js";
import { enforceBudget } from "./budget.js";
import { embedQuery, whileEmbedding } from "./embed-traced.js";

export type SearchResult = { memories: MemoryView[]; coverage?: Coverage; recall_gate_hidden: RecallGateHidden };

/**
 * Recall: query (present, within its byte cap) and k are checked before anything costs money (no embed,
 * no store read on a rejected call), then the scope rule, then hybrid
 * candidates and their ranking (rank.ts).
 */
export async function searchMemories(deps: CoreDeps, subject: Subject, a: SearchArgs, lane: Lane): Promise<SearchResult> {
  const query = checkQuery(a.query, deps.limits);
  const k = checkCount("k", a.k, deps.limits) || LANE_POLICY[lane].searchK;
  const scope = effectiveScope(a);
  const q = recallQuery(deps, subject, a, scope);
  const vector = embedQuery(deps.embedder, query);
  const terms = distinctTerms(query);
  const weighing = termWeightsOf(deps.store, terms, wordsOf([query]));
  const soft = softTableAhead(deps.embedder, query, weighing);
  const [visible, gated, weights, spanned, table] = await whileEmbedding<[ScoredRecord[], ScoredRecord[], Map<string, number>, Coverage | undefined, SoftTable]>(vector, [
    deps.store.search(q, vector, query, candidateK(k), soft.early),
    // What the gate hid: the top k with the gate lifted is the top k of the
    // visible candidates plus the gated ones, so only gated records are searched again.
    deps.store.search({ ...liftedQuery(q), onlyGated: true }, vector, query, candidateK(k), soft.early),
    weighing,
    scope === undefined ? coverage(deps, subject) : Promise.resolve(undefined),
    soft.table,
  ]);
  // The gated search asks for every gated record, also those this request's
  // include_* flags let through, which are among the visible ones already:
  // each record is a candidate once, or it could fill two of the lifted top k.
  const seen = new Set(visible.map((h) => h.record.id));
  const hidden = gated.filter((h) => !seen.has(h.record.id));
  // With nothing hidden, the lifted ranking is the visible one: rank once.
  const [hits, lifted = hits] = await traced<[ScoredRecord[], ScoredRecord[]?]>(
    "engram.rank",
    () => (hidden.length === 0 ? rankRecall(deps.store, deps.embedder, query, terms, weights, [visible], k, table) : rankRecall(deps.store, deps.embedder, query, terms, weights, [visible, [...visible, ...hidden]], k, table)),
    { attributes: { "engram.rank.candidates": visible.length, "engram.rank.hidden_candidates": hidden.length, "engram.rank.k": k } },
  );
  const memories = hits.map((h) =>
    a.full ? fullView(h.record, h.score) : compactView(h.record, deps.limits.summaryMaxChars, h.score),
  );
  const result: SearchResult = { memories, recall_gate_hidden: countHidden(lifted.map((h) => h.record), q) };
  if (spanned !== undefined) result.coverage = spanned;
  enforceBudget(deps, result);
  return result;
}
