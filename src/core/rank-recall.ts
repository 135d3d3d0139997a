import type { Embedder } from "../embed/embedder.js";
import type { ScoredRecord } from "../model/record.js";
import type { Store } from "../store/index.js";
import { withContext } from "./rank-context.js";
import { exactFirst } from "./rank-exact.js";
import { feedbackCandidates, feedbackOf, feedbackTexts, firstPass, RANKING, withFeedback } from "./rank.js";
import { termWeightsOf, wordsOf } from "./term-weights.js";
import { withSoftTerms } from "./rank-soft.js";
import type { SoftTable } from "./soft-table.js";

/**
 * Ranks one or more candidate lists of the same query (a search's visible
 * candidates, and the same with the gate lifted) and keeps k of each.
 * `weights` are the query terms' (looked up beside the candidates); every
 * list's feedback terms are then looked up together, in one call, and each
 * list gets its soft term matches (one table for all lists, `table` when
 * rows were begun ahead: soft-table.ts), and its
 * storage neighbours' lift, and last the exact and near-exact matches
 * put first (rank-exact.ts).
 */
export async function rankRecall<L extends readonly (readonly ScoredRecord[])[]>(
  store: Store,
  embedder: Embedder,
  query: string,
  terms: readonly string[],
  weights: ReadonlyMap<string, number>,
  lists: readonly [...L],
  k: number,
  table?: SoftTable,
): Promise<{ [I in keyof L]: ScoredRecord[] }> {
  const first = lists.map((hits) => firstPass(terms, weights, hits));
  const feedback = first.map((ranked) => feedbackOf(ranked, terms, weights));
  const extra = [...new Set(feedback.flatMap(feedbackCandidates))];
  const words = wordsOf(feedback.flatMap(feedbackTexts));
  const more = await termWeightsOf(store, extra, words);
  const fed = first.map((ranked, i) => withFeedback(ranked, terms, weights, more, feedback[i]));
  const soft = await withSoftTerms(embedder, query, weights, fed, table);
  const cosines = new Map(lists.flatMap((hits) => hits.map((h) => [h.record, h.score] as const)));
  return soft.map((ranked) => exactFirst(query, cosines, withContext(ranked, RANKING.depth, Number.MAX_SAFE_INTEGER)).slice(0, k)) as { [I in keyof L]: ScoredRecord[] };
}
