import type { Embedder } from "../embed/embedder.js";
import type { ScoredRecord } from "../model/record.js";
import type { Store } from "../store/index.js";
import { withContext } from "./rank-context.js";
import { feedbackCandidates, firstPass, RANKING, withFeedback } from "./rank.js";
import { withSoftTerms } from "./rank-soft.js";

/**
 * Ranks one or more candidate lists of the same query (a search's visible
 * candidates, and the same with the gate lifted) and keeps k of each.
 * `weights` are the query terms' (looked up beside the candidates); every
 * list's feedback terms are then looked up together, in one call, and each
 * list gets its soft term matches (one word lookup for all lists), and its
 * storage neighbours' lift last.
 */
export async function rankRecall<L extends readonly (readonly ScoredRecord[])[]>(
  store: Store,
  embedder: Embedder,
  query: string,
  terms: readonly string[],
  weights: ReadonlyMap<string, number>,
  lists: readonly [...L],
  k: number,
): Promise<{ [I in keyof L]: ScoredRecord[] }> {
  const first = lists.map((hits) => firstPass(terms, weights, hits));
  const extra = [...new Set(first.flatMap((ranked) => feedbackCandidates(ranked, terms, weights)))];
  const more = extra.length === 0 ? new Map<string, number>() : await store.termWeights(extra);
  const fed = first.map((ranked) => withFeedback(ranked, terms, weights, more));
  const soft = await withSoftTerms(embedder, query, weights, fed);
  return soft.map((ranked) => withContext(ranked, RANKING.depth, k)) as { [I in keyof L]: ScoredRecord[] };
}
