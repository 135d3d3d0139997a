import { CATEGORIES } from "./locomo.js";

export const CUTOFFS = [5, 10, 25] as const;

/** One answered question: its category, its evidence turns, and the turns returned, best first. */
export type Answer = { category: number; evidence: readonly string[]; ranked: readonly string[] };

export type Row = { label: string; questions: number; recall: number[]; hit: number[] };

/** The share of the evidence turns found in the first k. */
export function recallAt(a: Answer, k: number): number {
  const top = new Set(a.ranked.slice(0, k));
  return a.evidence.filter((e) => top.has(e)).length / a.evidence.length;
}

/** 1 when at least one evidence turn is in the first k. */
export function hitAt(a: Answer, k: number): number {
  const top = new Set(a.ranked.slice(0, k));
  return a.evidence.some((e) => top.has(e)) ? 1 : 0;
}

function row(label: string, answers: readonly Answer[]): Row {
  const mean = (f: (a: Answer) => number) => (answers.length === 0 ? 0 : answers.reduce((s, a) => s + f(a), 0) / answers.length);
  return {
    label,
    questions: answers.length,
    recall: CUTOFFS.map((k) => mean((a) => recallAt(a, k))),
    hit: CUTOFFS.map((k) => mean((a) => hitAt(a, k))),
  };
}

/** One row per category present, then the overall row. */
export function score(answers: readonly Answer[]): Row[] {
  const rows = Object.entries(CATEGORIES)
    .map(([c, label]) => row(label, answers.filter((a) => a.category === Number(c))))
    .filter((r) => r.questions > 0);
  return [...rows, row("overall", answers)];
}
