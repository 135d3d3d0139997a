import { hitAt, recallAt, type Answer } from "./scoring.js";

/** recall@10 and hit@10 of one conversation's questions. */
export type ConversationRow = { scope: string; questions: number; recall10: number; hit10: number };

/**
 * recall@10 and hit@10 per conversation, in scope order, and the spread of
 * recall@10 between the weakest and the strongest: an overall figure can
 * hide one conversation that fares much worse than the rest.
 */
export function perConversation(answers: readonly (Answer & { scope: string })[]): { rows: ConversationRow[]; spread: number } {
  const scopes = [...new Set(answers.map((a) => a.scope))].sort();
  const rows = scopes.map((scope) => {
    const mine = answers.filter((a) => a.scope === scope);
    const mean = (f: (a: Answer) => number) => mine.reduce((s, a) => s + f(a), 0) / mine.length;
    return { scope, questions: mine.length, recall10: mean((a) => recallAt(a, 10)), hit10: mean((a) => hitAt(a, 10)) };
  });
  const r = rows.map((x) => x.recall10);
  return { rows, spread: rows.length === 0 ? 0 : Math.max(...r) - Math.min(...r) };
}
