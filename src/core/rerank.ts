import { lexicalTokens } from "../store/lexical.js";
import type { ScoredRecord } from "../model/record.js";

/** Vector over-fetch before the rerank: four times k, at least 32, at most 100 (never below k). */
export function candidateK(k: number): number {
  return Math.max(k, Math.min(100, Math.max(32, 4 * k)));
}

/**
 * Deterministic lexical rerank: query-word overlap with content and tags
 * first, then the first-stage cosine, then id. The score shown stays the
 * cosine, so it need not be monotonic after the rerank.
 */
export function rerank(query: string, hits: readonly ScoredRecord[], k: number): ScoredRecord[] {
  const q = new Set(lexicalTokens(query));
  const keyed = hits.map((h) => {
    const words = lexicalTokens(`${h.record.content} ${h.record.tags.join(" ")}`);
    let overlap = 0;
    for (const w of words) if (q.has(w)) overlap++;
    return { h, overlap };
  });
  keyed.sort(
    (x, y) =>
      y.overlap - x.overlap ||
      y.h.score - x.h.score ||
      (x.h.record.id < y.h.record.id ? -1 : x.h.record.id > y.h.record.id ? 1 : 0),
  );
  return keyed.slice(0, k).map((x) => x.h);
}
