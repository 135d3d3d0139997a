/**
 * The reference line: plain BM25 (k1 1.2, b 0.75) over the same texts, with a
 * tokenizer of its own (lowercase runs of letters and digits; no stemming,
 * no stop words) so nothing the engine learns moves the baseline. Statistics
 * cover every text, as the engine's term weights cover the whole store;
 * ranking is within one scope, as the benchmark's searches are.
 */
const K1 = 1.2;
const B = 0.75;

export function plainTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export class PlainBm25 {
  private readonly tf: Map<string, number>[] = [];
  private readonly length: number[] = [];
  private readonly df = new Map<string, number>();
  private readonly byScope = new Map<string, number[]>();
  private averageLength = 0;

  constructor(private readonly docs: readonly { scope: string; id: string; text: string }[]) {
    docs.forEach((d, i) => {
      const counts = new Map<string, number>();
      const tokens = plainTokens(d.text);
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const t of counts.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      this.tf.push(counts);
      this.length.push(tokens.length);
      const list = this.byScope.get(d.scope) ?? [];
      list.push(i);
      this.byScope.set(d.scope, list);
    });
    this.averageLength = this.length.reduce((s, n) => s + n, 0) / Math.max(1, docs.length);
  }

  /** The ids of the scope's texts that share a term with the query, best first (ties in insertion order), at most k. */
  search(scope: string, query: string, k: number): string[] {
    const n = this.docs.length;
    const terms = [...new Set(plainTokens(query))];
    const scored: { i: number; s: number }[] = [];
    for (const i of this.byScope.get(scope) ?? []) {
      let s = 0;
      for (const t of terms) {
        const f = this.tf[i]!.get(t);
        if (!f) continue;
        const m = this.df.get(t)!;
        const idf = Math.log((n - m + 0.5) / (m + 0.5) + 1);
        s += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * this.length[i]!) / this.averageLength));
      }
      if (s > 0) scored.push({ i, s });
    }
    scored.sort((x, y) => y.s - x.s || x.i - y.i);
    return scored.slice(0, k).map((x) => this.docs[x.i]!.id);
  }
}
