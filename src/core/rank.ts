import { searchableText } from "../model/lexical-terms.js";
import type { MemoryRecord, ScoredRecord } from "../model/record.js";
import { RANKING } from "./rank-constants.js";
import { termCounts } from "./term-counts.js";

export { RANKING } from "./rank-constants.js";
export { termCounts } from "./term-counts.js";

/** Candidates fetched per lane before ranking: the ranking's depth, or k when k asks for more. */
export function candidateK(k: number): number {
  return Math.max(k, RANKING.depth);
}

export const byScore = (x: ScoredRecord, y: ScoredRecord) => y.score - x.score || (x.record.id < y.record.id ? -1 : x.record.id > y.record.id ? 1 : 0);

/**
 * The share of the terms' total weight found in a record, as a function of
 * the record: 0 when none of the terms has a weight. The weights are read
 * once per pass, not once per candidate.
 */
function coverageOf(terms: readonly string[], weights: ReadonlyMap<string, number>): (record: MemoryRecord) => number {
  const w = terms.map((t) => weights.get(t) ?? 0);
  let total = 0;
  for (const x of w) total += x;
  return (record) => {
    if (!(total > 0)) return 0;
    const { tf } = termCounts(record);
    let covered = 0;
    for (let i = 0; i < terms.length; i++) if (tf.has(terms[i]!)) covered += w[i]!;
    return covered / total;
  };
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
  const w = query.map((t) => weights.get(t)!);
  const bm25 = hits.map((h) => {
    if (query.length === 0) return 0;
    const { tf, length } = termCounts(h.record);
    const norm = RANKING.k1 * (1 - RANKING.b + (RANKING.b * length) / RANKING.averageTerms);
    let s = 0;
    for (let j = 0; j < query.length; j++) {
      const f = tf.get(query[j]!);
      if (f) s += (w[j]! * f * (RANKING.k1 + 1)) / (f + norm);
    }
    return s;
  });
  const best = Math.max(0, ...bm25);
  const coverage = coverageOf(query, weights);
  return hits
    .map((h, i) => {
      const cosine = Math.max(-1, Math.min(1, h.score));
      const lexical = best > 0 ? (RANKING.bm25 * bm25[i]!) / best : 0;
      return { record: h.record, score: cosine + lexical + RANKING.coverage * coverage(h.record) };
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
    const { tf } = termCounts(h.record);
    if (query.some((t) => tf.has(t))) out.push(h.record);
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
  const coverage = coverageOf(feedback, weights);
  return ranked.map((h) => ({ record: h.record, score: h.score + RANKING.feedback * coverage(h.record) })).sort(byScore);
}
