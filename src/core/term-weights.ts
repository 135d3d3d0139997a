import { lexicalWords } from "../model/lexical-terms.js";
import type { Store } from "../store/index.js";
import { priorRarity } from "./english-prior.js";
import { RANKING } from "./rank.js";

/**
 * The term weights the ranking uses: the store's own inverse document
 * frequencies, scaled down for words common in English (english-prior.ts)
 * by how few records the store holds. Over four records every word one
 * record holds weighs the same, so "use" would count as much as "billing";
 * over thousands the store's own counts know its words best. Scaling keeps
 * the store's order among rare words (a name every record of a small store
 * holds stays light), where replacing its weights by the prior's would not.
 * A term no record holds stays out, as the store leaves it. `words` gives
 * the written word of a term where one is known (the prior reads words,
 * "billing", not stems, "bill"); otherwise the term itself.
 */
export function blendWeights(own: ReadonlyMap<string, number>, records: number, words: ReadonlyMap<string, string>): Map<string, number> {
  const trust = records / (records + RANKING.priorRecords);
  const out = new Map<string, number>();
  for (const [t, w] of own) out.set(t, w * (trust + (1 - trust) * priorRarity(words.get(t) ?? t)));
  return out;
}

/** The terms' blended weights, the store asked for its counts and its size at once. */
export async function termWeightsOf(store: Store, terms: readonly string[], words: ReadonlyMap<string, string>): Promise<Map<string, number>> {
  if (terms.length === 0) return new Map();
  const [own, records] = await Promise.all([store.termWeights(terms), store.termRecordCount()]);
  return blendWeights(own, records, words);
}

/** Each term of the texts with the first word written for it. */
export function wordsOf(texts: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const text of texts) for (const w of lexicalWords(text, Number.MAX_SAFE_INTEGER)) if (!out.has(w.term)) out.set(w.term, w.word);
  return out;
}
