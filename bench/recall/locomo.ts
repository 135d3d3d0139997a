/**
 * Reads a file in the LoCoMo format (Maharana et al., ACL 2024): samples, each
 * a conversation of dated sessions of turns and a list of questions naming the
 * turns that hold their answer. Only the shape is known here; nothing of it
 * reaches the engine, which sees plain memories and plain queries.
 */

export type Turn = { scope: string; diaId: string; content: string };
export type Question = { scope: string; question: string; evidence: string[]; category: number };
export type Benchmark = { turns: Turn[]; questions: Question[]; skipped: number };

/** Categories with evidence to find: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop (5, adversarial, has none). */
export const CATEGORIES: Readonly<Record<number, string>> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };

type RawTurn = { speaker: string; dia_id: string; text: string; blip_caption?: string };
type RawSample = { sample_id: string; conversation: Record<string, unknown>; qa: { question: string; evidence?: unknown; category: number }[] };

/** `<speaker> (<session date_time>): <text>`, plus ` [image: <caption>]` when the turn shared one. */
export function turnContent(t: RawTurn, date: string): string {
  const base = `${t.speaker} (${date}): ${t.text}`;
  return t.blip_caption ? `${base} [image: ${t.blip_caption}]` : base;
}

/**
 * Every turn, in scope `locomo:<sample_id>`, and every question of categories
 * 1-4. Evidence lists are split on separators (a few entries hold two ids)
 * and kept to ids of turns that exist; a question left with none is counted
 * in `skipped` and not asked.
 */
export function parseLocomo(samples: readonly RawSample[]): Benchmark {
  const turns: Turn[] = [];
  const questions: Question[] = [];
  let skipped = 0;
  for (const s of samples) {
    const scope = `locomo:${s.sample_id}`;
    const c = s.conversation;
    const ids = new Set<string>();
    for (let n = 1; Array.isArray(c[`session_${n}`]); n++) {
      const date = String(c[`session_${n}_date_time`] ?? "");
      for (const t of c[`session_${n}`] as RawTurn[]) {
        turns.push({ scope, diaId: t.dia_id, content: turnContent(t, date) });
        ids.add(t.dia_id);
      }
    }
    for (const q of s.qa) {
      if (!(q.category in CATEGORIES)) continue;
      const raw = Array.isArray(q.evidence) ? q.evidence.map(String) : [];
      const evidence = [...new Set(raw.flatMap((e) => e.split(/[;,\s]+/)).filter((e) => ids.has(e)))];
      if (evidence.length === 0) {
        skipped++;
        continue;
      }
      questions.push({ scope, question: q.question, evidence, category: q.category });
    }
  }
  return { turns, questions, skipped };
}
