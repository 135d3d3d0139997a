import type { Embedder } from "../embed/embedder.js";
import { innerProducts, type QuantizedVector } from "../store/index.js";
import { lexicalWords, searchableText, termCountsAndWords, type LexicalWord } from "../model/lexical-terms.js";
import type { MemoryRecord, ScoredRecord } from "../model/record.js";
import { byScore, RANKING, termCounts } from "./rank.js";
import { wordVectorsOf } from "./word-vectors.js";

/** The words of a record soft term matches look at, read with its terms (rank.ts), once per record object. */
function recordWords(record: MemoryRecord): readonly string[] {
  return termCounts(record).words;
}

/** The words of a record that soft term matches look at: its first `softRecordWords` distinct ones. */
export function softWords(record: { content: string; summary?: string; tags?: readonly string[] }): readonly string[] {
  // The same scan the ranking reads a candidate's words from (termCounts), so a write offers exactly the words a search looks up.
  return termCountsAndWords(searchableText(record), RANKING.softRecordWords).words;
}

/**
 * Soft term matches. The words of a question and of the record that answers
 * it often differ ("instruments" asked, "violin" stored), and the lexical
 * parts then see nothing. Each query word (of those `queryWords` keeps) a
 * candidate lacks by term still counts for part of its weight when the
 * candidate holds a word whose vector is near the query word's: the cosine
 * above `softFloor`, scaled to [0, 1]. The candidate gains `soft` times the
 * share of those words' weight so held. Only the best `softRecords` candidates are looked at, and the
 * first `softRecordWords` distinct words of each, so a search embeds a
 * bounded number of words however large k is. Word vectors come from the
 * records' own embedder, kept by word, so the part needs nothing of the
 * store and both stores add it alike.
 */
export async function withSoftTerms(
  embedder: Embedder,
  query: string,
  weights: ReadonlyMap<string, number>,
  lists: readonly (readonly ScoredRecord[])[],
): Promise<ScoredRecord[][]> {
  const asked = queryWords(query, weights);
  const total = asked.reduce((s, w) => s + weights.get(w.term)!, 0);
  if (total === 0) return lists.map((l) => [...l]);
  // Every distinct word of the candidates looked at gets a row of nearness,
  // one value per query word; each candidate looked at keeps where its words' rows start.
  const row = new Map<string, number>();
  const held = lists.map((list) =>
    list.slice(0, RANKING.softRecords).map((h) =>
      recordWords(h.record).map((w) => {
        let at = row.get(w);
        if (at === undefined) row.set(w, (at = row.size * asked.length));
        return at;
      }),
    ),
  );
  const vectors = await wordVectorsOf(embedder).vectorsOf([...asked.map((q) => q.word), ...row.keys()]);
  const near = await nearness(vectors.slice(0, asked.length), vectors.slice(asked.length));
  return lists.map((list, l) =>
    list
      .map((h, at) => {
        if (at >= RANKING.softRecords) return h;
        const { tf } = termCounts(h.record);
        const rows = held[l]![at]!;
        let soft = 0;
        asked.forEach((q, i) => {
          if (tf.has(q.term)) return;
          let best = 0;
          for (const r of rows) if (near[r + i]! > best) best = near[r + i]!;
          soft += weights.get(q.term)! * best;
        });
        return soft === 0 ? h : { record: h.record, score: h.score + (RANKING.soft * soft) / total };
      })
      .sort(byScore),
  );
}

/**
 * Each word's nearness to each query word, a row per word: the cosine above
 * `softFloor`, scaled to [0, 1]. The products are most of a search's
 * ranking work, so they are computed natively, all in one call, over the
 * words' quantized vectors.
 */
async function nearness(query: readonly QuantizedVector[], words: readonly QuantizedVector[]): Promise<Float64Array> {
  const floor = RANKING.softFloor;
  const out = await innerProducts(words, query);
  for (let j = 0; j < out.length; j++) out[j] = out[j]! > floor ? (out[j]! - floor) / (1 - floor) : 0;
  return out;
}

/**
 * The query's words with a term weight, one per term, at most
 * `softQueryWords`, less those weighing under `softQueryShare` of the
 * heaviest: a word most records hold says little, and words near it less.
 */
function queryWords(query: string, weights: ReadonlyMap<string, number>): LexicalWord[] {
  const seen = new Set<string>();
  const out: LexicalWord[] = [];
  for (const w of lexicalWords(query, Number.MAX_SAFE_INTEGER)) {
    if (out.length >= RANKING.softQueryWords) break;
    if (seen.has(w.term) || (weights.get(w.term) ?? 0) <= 0) continue;
    seen.add(w.term);
    out.push(w);
  }
  const heaviest = Math.max(0, ...out.map((w) => weights.get(w.term)!));
  return out.filter((w) => weights.get(w.term)! >= RANKING.softQueryShare * heaviest);
}
