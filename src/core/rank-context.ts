import type { MemoryRecord, ScoredRecord } from "../model/record.js";
import { byScore, RANKING } from "./rank.js";

/** Storage order: by scope, then by when the record was stored, ties by id. */
function byStorage(x: ScoredRecord, y: ScoredRecord): number {
  const a = x.record;
  const b = y.record;
  if (a.scope !== b.scope) return a.scope < b.scope ? -1 : 1;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Question marks that end a question in the scripts that use one at its end. */
const QUESTION_MARKS = new Set(["?", "\uFF1F", "\u061F"]);

/** Whether the record's content ends with a question mark (trailing white space aside). */
export function asksAQuestion(record: MemoryRecord): boolean {
  const text = record.content;
  let end = text.length - 1;
  while (end >= 0 && /\s/.test(text[end]!)) end--;
  return end >= 0 && QUESTION_MARKS.has(text[end]!);
}

/**
 * The last pass. Records an agent stores one after another in one scope are
 * usually about the same thing (one session's notes, one conversation's
 * turns), and a question about that thing often needs the record beside the
 * one that matched. So each candidate is lifted by 0.4 times how far the
 * better of its storage neighbours stands above the floor; 0.8 times when
 * the neighbour before it asks a question, since the record after a
 * question is most often its answer. A record that asks holds no answer
 * itself, so it loses 0.2.
 *
 * The neighbours are the lifters stored nearest before and after it in its
 * scope, the lifters being the best `lifters` candidates (the same number
 * each lane fetched), and the floor the weakest lifter's score. The
 * candidates below them neither lift nor separate neighbours: which of them
 * a lane returns can turn on a tie, and the order must not. Only candidates
 * are looked at, so the lift needs no read and both stores lift alike.
 *
 * The result is best first, ties by id, k kept. The score returned is the
 * one the order follows, in [-1.2, 5.66] (cosine in [-1, 1], lexical parts
 * up to 0.9, soft term matches up to 0.8, less 0.2 for a question, the lift
 * up to 0.8 of the candidates' spread), and is comparable within one answer
 * only.
 */
export function withContext(ranked: readonly ScoredRecord[], lifters: number, k: number): ScoredRecord[] {
  if (ranked.length < 2) return ranked.slice(0, k).map((h) => wire(h.record, asked(h.score, asksAQuestion(h.record))));
  // By position in `ranked`: each candidate's question mark is looked for once.
  const n = ranked.length;
  const lifting = Math.min(lifters, n);
  const floor = ranked[lifting - 1]!.score;
  const asks = ranked.map((h) => asksAQuestion(h.record));
  const stored = Array.from({ length: n }, (_, i) => i).sort((x, y) => byStorage(ranked[x]!, ranked[y]!));
  const lift = new Float64Array(n);
  // One sweep each way: the nearest lifter seen so far in the same scope.
  for (const before of [true, false]) {
    let scope: string | undefined;
    let by: number | undefined;
    for (let j = 0; j < n; j++) {
      const i = stored[before ? j : n - 1 - j]!;
      const h = ranked[i]!;
      if (h.record.scope !== scope) {
        scope = h.record.scope;
        by = undefined;
      }
      if (by !== undefined) lift[i] = Math.max(lift[i]!, by);
      if (i < lifting) {
        const weight = before && asks[i] ? RANKING.context + RANKING.answer : RANKING.context;
        by = weight * Math.max(0, h.score - floor);
      }
    }
  }
  return ranked
    .map((h, i) => wire(h.record, asked(h.score, asks[i]!) + lift[i]!))
    .sort(byScore)
    .slice(0, k);
}

/**
 * The score as the wire carries it: `Memory.score` is a float, so the core
 * rounds to float32 before ordering. Binary and JSON answers then show the
 * same number, and two hits that tie on the wire are in id order.
 */
function wire(record: MemoryRecord, score: number): ScoredRecord {
  return { record, score: Math.fround(score) };
}

/** A score less what a record that asks a question loses. */
function asked(score: number, asks: boolean): number {
  return asks ? score - RANKING.asking : score;
}
