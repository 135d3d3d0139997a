import { lexicalTerms } from "../model/lexical-terms.js";
import type { MemoryRecord, ScoredRecord } from "../model/record.js";
import { byScore, RANKING, termCounts } from "./rank.js";

/**
 * How exactly a candidate answers the query, decided on what the lanes gave
 * before any pass adds to a score: 2 when its content is the query (the
 * same terms in the same order, as the tokenizer reads both), 1 when it
 * holds every query term at a cosine of at least `nearCosine`, else 0. An
 * agent searching by what it stored expects that record back first; the
 * lexical, feedback, soft and neighbour parts exist to find what a query
 * does not spell out, and must not push aside what it spells out whole.
 */
function exactness(queryTerms: readonly string[], record: MemoryRecord, cosine: number): 0 | 1 | 2 {
  if (queryTerms.length === 0) return 0;
  const { tf } = termCounts(record);
  for (const t of queryTerms) if (!tf.has(t)) return 0;
  const own = lexicalTerms(record.content);
  if (own.length === queryTerms.length && own.every((t, i) => t === queryTerms[i])) return 2;
  return cosine >= RANKING.nearCosine ? 1 : 0;
}

/**
 * The ranked candidates with every exact match above every near-exact one,
 * and every near-exact one above the rest. A level is raised as a whole to
 * `exactMargin` past the best score below it, so the order within it stays
 * the one the passes gave and scores stay descending; a level already above
 * is left as it is. `cosines` are the lanes' scores by record. Best first,
 * ties by id; scores float32, as the wire carries them.
 */
export function exactFirst(query: string, cosines: ReadonlyMap<MemoryRecord, number>, ranked: readonly ScoredRecord[]): ScoredRecord[] {
  const terms = lexicalTerms(query);
  const level = new Map<ScoredRecord, number>();
  for (const h of ranked) {
    const e = exactness(terms, h.record, cosines.get(h.record) ?? -1);
    if (e > 0) level.set(h, e);
  }
  if (level.size === 0) return [...ranked];
  const out = new Map<ScoredRecord, number>(ranked.map((h) => [h, h.score]));
  let below = -Infinity;
  for (const l of [0, 1, 2]) {
    const members = ranked.filter((h) => (level.get(h) ?? 0) === l);
    if (members.length === 0) continue;
    const lowest = Math.min(...members.map((h) => out.get(h)!));
    const shift = l > 0 && lowest <= below ? below - lowest + RANKING.exactMargin : 0;
    for (const h of members) out.set(h, Math.fround(out.get(h)! + shift));
    below = Math.max(below, ...members.map((h) => out.get(h)!));
  }
  return ranked.map((h) => ({ record: h.record, score: out.get(h)! })).sort(byScore);
}
