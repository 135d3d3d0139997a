import type { ScoredRecord } from "../model/record.js";
import { byScore, RANKING } from "./rank.js";

/** Storage order: by scope, then by when the record was stored, ties by id. */
function byStorage(x: ScoredRecord, y: ScoredRecord): number {
  const a = x.record;
  const b = y.record;
  if (a.scope !== b.scope) return a.scope < b.scope ? -1 : 1;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The last pass. Records an agent stores one after another in one scope are
 * usually about the same thing (one session's notes, one conversation's
 * turns), and a question about that thing often needs the record beside the
 * one that matched. So each candidate is lifted by 0.4 times how far the
 * better of its storage neighbours stands above the floor.
 *
 * The neighbours are the lifters stored nearest before and after it in its
 * scope, the lifters being the best `lifters` candidates (the same number
 * each lane fetched), and the floor the weakest lifter's score. The
 * candidates below them neither lift nor separate neighbours: which of them
 * a lane returns can turn on a tie, and the order must not. Only candidates
 * are looked at, so the lift needs no read and both stores lift alike.
 *
 * The result is best first, ties by id, k kept. The score returned is the
 * one the order follows, in [-1, 3.06] (cosine in [-1, 1], lexical parts up
 * to 0.9, the lift up to 0.4 of the candidates' spread), and is comparable
 * within one answer only.
 */
export function withContext(ranked: readonly ScoredRecord[], lifters: number, k: number): ScoredRecord[] {
  if (ranked.length < 2) return ranked.slice(0, k);
  const lifting = new Set(ranked.slice(0, lifters));
  const floor = ranked[Math.min(lifters, ranked.length) - 1]!.score;
  const stored = ranked.slice().sort(byStorage);
  const best = new Map<ScoredRecord, number>();
  // One sweep each way: the nearest lifter seen so far in the same scope.
  for (const order of [stored, stored.slice().reverse()]) {
    let scope: string | undefined;
    let last: number | undefined;
    for (const h of order) {
      if (h.record.scope !== scope) {
        scope = h.record.scope;
        last = undefined;
      }
      if (last !== undefined) best.set(h, Math.max(best.get(h) ?? floor, last));
      if (lifting.has(h)) last = h.score;
    }
  }
  return ranked
    .map((h) => ({ record: h.record, score: h.score + RANKING.context * Math.max(0, (best.get(h) ?? floor) - floor) }))
    .sort(byScore)
    .slice(0, k);
}
