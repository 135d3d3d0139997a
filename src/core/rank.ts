import { searchableText, termCountsAndWords } from "../model/lexical-terms.js";
import type { MemoryRecord, ScoredRecord } from "../model/record.js";

/**
 * The ranking's constants, chosen on the LoCoMo development split (see
 * docs/recall.md): each sits on a plateau, so
 * neighbouring values rank within about a point of recall of these.
 */
export const RANKING = Object.freeze({
  /** BM25's term-frequency saturation and length normalization. */
  k1: 1.2,
  b: 0.75,
  /**
   * The record length (in terms) BM25 normalizes against. Fixed rather than
   * the store's running average, so a score depends on nothing the store
   * holds but the term weights, and both stores agree.
   */
  averageTerms: 32,
  /**
   * Candidates per lane, and the best of them that lift their storage
   * neighbours, whatever k is: the ranking was chosen at this depth, and
   * with it a smaller k's answer is the head of a larger one's (k ≤ 100),
   * so lanes with different default k agree on which hit is best.
   */
  depth: 100,
  /** Weight of the BM25 score, as a share of the best candidate's. */
  bm25: 0.2,
  /** Weight of the share of the query's total term weight a record holds. */
  coverage: 0.4,
  /** Pseudo-relevance feedback: the best records of the first pass holding a query term, whose terms extend the query... */
  feedbackRecords: 10,
  /** ...the most frequent of their terms whose weights are looked up... */
  feedbackLookups: 64,
  /** ...the feedback terms kept, by frequency times weight... */
  feedbackTerms: 10,
  /** ...and the weight of the share of their total term weight a record holds. */
  feedback: 0.3,
  /**
   * Weight of the storage neighbours' lift: how far the better of a
   * candidate's neighbours (the best candidates stored nearest before and
   * after it in its scope) stands above the weakest of those best.
   */
  context: 0.4,
  /**
   * Added to that weight when the neighbour stored before a candidate asks
   * a question: the record after a question is most often its answer.
   */
  answer: 0.4,
  /** Taken from a record that asks a question: it holds no answer itself. */
  asking: 0.2,
  /**
   * Soft term matches: weight of the share of the query's term weight a
   * record holds not as the words themselves but as words near them in
   * meaning...
   */
  soft: 0.8,
  /** ...a word's nearness being its vector's cosine to the query word's, counted from this floor up to 1... */
  softFloor: 0.58,
  /** ...over the first this many distinct words of a record... */
  softRecordWords: 32,
  /** ...for the best this many candidates of the feedback pass (every one when k is at most the depth)... */
  softRecords: 200,
  /** ...and of the query... */
  softQueryWords: 16,
  /** ...those weighing at least this share of the heaviest query word. */
  softQueryShare: 0.5,
  /** A record holding every query term at this cosine or above is near-exact: no lift carries another past it. */
  nearCosine: 0.95,
  /** How far an exact or near-exact match is raised above the best score of the tier below it. */
  exactMargin: 0.01,
  /**
   * Term weights: for a store of N records, N / (N + this) of a term's
   * weight is the store's own; the rest is scaled by how rare the word is
   * in English (term-weights.ts).
   */
  priorRecords: 1000,
});

/** Candidates fetched per lane before ranking: the ranking's depth, or k when k asks for more. */
export function candidateK(k: number): number {
  return Math.max(k, RANKING.depth);
}

/** A record's term frequencies and length in terms, and the words soft term matches look at (rank-soft.ts). */
type TermCounts = { tf: Map<string, number>; length: number; words: readonly string[] };

/**
 * Each record object is counted once: a search ranks the same candidates in
 * several passes, and a store never changes a record it has handed out (it
 * hands out frozen records or fresh copies), so the counts stay true.
 */
const COUNTED = new WeakMap<MemoryRecord, TermCounts>();

export function termCounts(record: MemoryRecord): TermCounts {
  const kept = COUNTED.get(record);
  if (kept) return kept;
  const counts = termCountsAndWords(searchableText(record), RANKING.softRecordWords);
  COUNTED.set(record, counts);
  return counts;
}

export const byScore = (x: ScoredRecord, y: ScoredRecord) => y.score - x.score || (x.record.id < y.record.id ? -1 : x.record.id > y.record.id ? 1 : 0);

/** The share of the terms' total weight found in a record: 0 when none of them has a weight. */
function coverage(record: MemoryRecord, terms: readonly string[], weights: ReadonlyMap<string, number>): number {
  let total = 0;
  let covered = 0;
  const { tf } = termCounts(record);
  for (const t of terms) {
    const w = weights.get(t) ?? 0;
    total += w;
    if (tf.has(t)) covered += w;
  }
  return total > 0 ? covered / total : 0;
}

/**
 * The first pass, every candidate kept, best first: its dense cosine
 * (clamped to [-1, 1]), plus 0.2 times its BM25 score over the query terms
 * as a share of the best candidate's, plus 0.4 times the share of the
 * query's total term weight it holds in its content, summary and tags.
 * Term weights are the store's inverse document frequencies, so a rare word
 * counts for more than a common one.
 */
export function firstPass(terms: readonly string[], weights: ReadonlyMap<string, number>, hits: readonly ScoredRecord[]): ScoredRecord[] {
  const query = [...new Set(terms)].filter((t) => (weights.get(t) ?? 0) > 0);
  const bm25 = hits.map((h) => {
    if (query.length === 0) return 0;
    const { tf, length } = termCounts(h.record);
    const norm = RANKING.k1 * (1 - RANKING.b + (RANKING.b * length) / RANKING.averageTerms);
    let s = 0;
    for (const t of query) {
      const f = tf.get(t);
      if (f) s += (weights.get(t)! * f * (RANKING.k1 + 1)) / (f + norm);
    }
    return s;
  });
  const best = Math.max(0, ...bm25);
  return hits
    .map((h, i) => {
      const cosine = Math.max(-1, Math.min(1, h.score));
      const lexical = best > 0 ? (RANKING.bm25 * bm25[i]!) / best : 0;
      return { record: h.record, score: cosine + lexical + RANKING.coverage * coverage(h.record, query, weights) };
    })
    .sort(byScore);
}

/**
 * The first pass's best records that hold a query term: only they feed
 * terms back. A record near the query by meaning alone says nothing about
 * its words, and in a small scope the best ten would be most of it.
 */
function feedbackRecords(ranked: readonly ScoredRecord[], terms: readonly string[], weights: ReadonlyMap<string, number>): MemoryRecord[] {
  const query = terms.filter((t) => (weights.get(t) ?? 0) > 0);
  const out: MemoryRecord[] = [];
  for (const h of ranked) {
    if (out.length >= RANKING.feedbackRecords) break;
    if (query.some((t) => termCounts(h.record).tf.has(t))) out.push(h.record);
  }
  return out;
}

/** A first pass's feedback records, and how many of them hold each term the query lacks, most first (ties by first seen). */
export type Feedback = { records: readonly MemoryRecord[]; counts: readonly [string, number][] };

/** The feedback of one first pass, found once for the three steps that read it. `weights` are the query terms'. */
export function feedbackOf(ranked: readonly ScoredRecord[], terms: readonly string[], weights: ReadonlyMap<string, number>): Feedback {
  const records = feedbackRecords(ranked, terms, weights);
  const query = new Set(terms);
  const seen = new Map<string, number>();
  for (const r of records) {
    for (const t of termCounts(r).tf.keys()) if (!query.has(t)) seen.set(t, (seen.get(t) ?? 0) + 1);
  }
  return { records, counts: [...seen.entries()].sort((x, y) => y[1] - x[1]) };
}

/** The feedback records' searchable texts: where the feedback terms' written words are found. */
export function feedbackTexts(feedback: Feedback): string[] {
  return feedback.records.map((r) => searchableText(r));
}

/** Candidate feedback terms, as many as are worth a weight lookup. */
export function feedbackCandidates(feedback: Feedback): string[] {
  return feedback.counts.slice(0, RANKING.feedbackLookups).map(([t]) => t);
}

/**
 * The second pass: the feedback terms (frequency among the feedback records
 * times weight, the top ten; `weights` are theirs) add 0.3 times the share of their total weight
 * a candidate holds; every candidate kept, best first, ties by id.
 */
export function withFeedback(
  ranked: readonly ScoredRecord[],
  terms: readonly string[],
  queryWeights: ReadonlyMap<string, number>,
  weights: ReadonlyMap<string, number>,
  found: Feedback = feedbackOf(ranked, terms, queryWeights),
): ScoredRecord[] {
  const feedback = found.counts
    .slice(0, RANKING.feedbackLookups)
    .map(([t, n]) => ({ t, v: n * (weights.get(t) ?? 0) }))
    .filter((x) => x.v > 0)
    .sort((x, y) => y.v - x.v)
    .slice(0, RANKING.feedbackTerms)
    .map((x) => x.t);
  if (feedback.length === 0) return [...ranked];
  return ranked
    .map((h) => ({ record: h.record, score: h.score + RANKING.feedback * coverage(h.record, feedback, weights) }))
    .sort(byScore);
}
