import { ANONYMOUS } from "../model/subject.js";
import { GATE_ON, type RecordQuery, type Store } from "../store/index.js";

/**
 * `engram spine-review consolidate`: ranked near-duplicate pairs among the
 * records recall can see, from the vectors already stored. Each record asks
 * the store's vector index for its `topK` nearest (Store.neighbours), so the
 * work grows with records × topK, never with every pair; a pair found from
 * both sides is one row. Reads only.
 */

/** Records asked about per call of the store: each call weighs the query against every record once. */
export const NEIGHBOUR_BATCH = 4096;

export type ConsolidatePair = {
  score: number;
  a_id: string;
  a_short_id: string;
  a_scope: string;
  b_id: string;
  b_short_id: string;
  b_scope: string;
};

export type ConsolidateReport = {
  scope: string | null;
  top_k: number;
  min_score: number | null;
  records: number;
  pairs: number;
  results: ConsolidatePair[];
};

export type ConsolidateOptions = {
  /** undefined: every scope (pairs may then cross scopes). */
  scope?: string;
  topK: number;
  /** undefined: no filter, negative cosines included. */
  minScore?: number;
  now: number;
  /** After each batch: records compared so far, of how many. It may throw to stop. */
  onProgress?: (done: number, total: number) => void;
};

type Identity = { id: string; short_id: string; scope: string };

export async function consolidate(store: Store, o: ConsolidateOptions): Promise<ConsolidateReport> {
  const query: RecordQuery = { subject: ANONYMOUS, allOwners: true, gate: GATE_ON, now: o.now, ...(o.scope !== undefined ? { scope: o.scope } : {}) };
  // Only each record's identity is kept (the listed records are let go at once), in id order, so a pair's key and the row's a/b order need no string compares later.
  const who: Identity[] = (await store.list(query, { order: "asc", limit: Number.MAX_SAFE_INTEGER })).records
    .map((r) => ({ id: r.id, short_id: r.short_id, scope: r.scope }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const indexOf = new Map(who.map((r, i) => [r.id, i]));
  const n = who.length;
  // One entry per unordered pair, keyed by two indexes in one number (exact while n² < 2^53).
  const pairs = new Map<number, number>();
  for (let start = 0; start < n; start += NEIGHBOUR_BATCH) {
    const batch = who.slice(start, start + NEIGHBOUR_BATCH);
    const found = await store.neighbours(
      batch.map((r) => r.id),
      o.topK,
      query,
    );
    for (const [id, hits] of found) {
      const a = indexOf.get(id);
      if (a === undefined) continue;
      for (const h of hits) {
        const b = indexOf.get(h.id);
        // A record written after the listing is not in this run.
        if (b === undefined || b === a) continue;
        if (o.minScore !== undefined && h.score < o.minScore) continue;
        const key = a < b ? a * n + b : b * n + a;
        if (!pairs.has(key)) pairs.set(key, h.score);
      }
    }
    o.onProgress?.(Math.min(n, start + NEIGHBOUR_BATCH), n);
  }
  const results: ConsolidatePair[] = [];
  for (const [key, score] of pairs) {
    const a = who[Math.floor(key / n)]!;
    const b = who[key % n]!;
    results.push({ score, a_id: a.id, a_short_id: a.short_id, a_scope: a.scope, b_id: b.id, b_short_id: b.short_id, b_scope: b.scope });
  }
  results.sort((x, y) => y.score - x.score || (x.a_id < y.a_id ? -1 : x.a_id > y.a_id ? 1 : x.b_id < y.b_id ? -1 : x.b_id > y.b_id ? 1 : 0));
  return { scope: o.scope ?? null, top_k: o.topK, min_score: o.minScore ?? null, records: n, pairs: results.length, results };
}
