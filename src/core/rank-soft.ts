import type { Embedder } from "../embed/embedder.js";
import { searchableText, termCountsAndWords } from "../model/lexical-terms.js";
import type { MemoryRecord, ScoredRecord } from "../model/record.js";
import { byScore, RANKING, termCounts } from "./rank.js";
import { SoftTable } from "./soft-table.js";

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
 * store and both stores add it alike. `table` may hold rows begun before
 * the ranking (soft-table.ts).
 */
export async function withSoftTerms(
  embedder: Embedder,
  query: string,
  weights: ReadonlyMap<string, number>,
  lists: readonly (readonly ScoredRecord[])[],
  table: SoftTable = new SoftTable(embedder, query, weights),
): Promise<ScoredRecord[][]> {
  const { asked, total } = table;
  if (total === 0) return lists.map((l) => [...l]);
  // Each candidate looked at keeps where its words' rows of nearness start.
  const held = lists.map((list) => list.slice(0, RANKING.softRecords).map((h) => table.placeRecord(h.record)));
  const near = await table.rows();
  const terms = asked.map((q) => q.term);
  const termWeights = terms.map((t) => weights.get(t)!);
  return lists.map((list, l) =>
    list
      .map((h, at) => {
        if (at >= RANKING.softRecords) return h;
        const { tf } = termCounts(h.record);
        const rows = held[l]![at]!;
        let soft = 0;
        for (let i = 0; i < terms.length; i++) {
          if (tf.has(terms[i]!)) continue;
          let best = 0;
          for (const r of rows) if (near[r + i]! > best) best = near[r + i]!;
          soft += termWeights[i]! * best;
        }
        return soft === 0 ? h : { record: h.record, score: h.score + (RANKING.soft * soft) / total };
      })
      .sort(byScore),
  );
}
