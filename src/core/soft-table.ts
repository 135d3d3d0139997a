import type { Embedder } from "../embed/embedder.js";
import { innerProducts, type QuantizedVector } from "../store/index.js";
import { lexicalWords, type LexicalWord } from "../model/lexical-terms.js";
import type { MemoryRecord } from "../model/record.js";
import { RANKING } from "./rank-constants.js";
import { termCounts } from "./term-counts.js";
import { wordVectorsOf } from "./word-vectors.js";

/**
 * One search's nearness of words to its query's words, for soft term
 * matches (rank-soft.ts): a row per word, one value per query word, laid
 * end to end. Words are placed as they are met and their rows filled a
 * batch at a time, each batch by one word-vector lookup and one native call,
 * so the candidates a store finds before the query's vector (store.ts,
 * `early`) have theirs computed while the query embeds. A value does not
 * depend on the batch it was computed in.
 */
export class SoftTable {
  /** The query words looked at, and their total weight (0: no soft matches). */
  readonly asked: readonly LexicalWord[];
  readonly total: number;
  private readonly row = new Map<string, number>();
  private readonly placed = new WeakMap<MemoryRecord, readonly number[]>();
  private near = new Float64Array(0);
  /** Words placed and not yet in a batch, in row order, and the row the first of them has. */
  private waiting: string[] = [];
  private firstWaiting = 0;
  private queryVectors: QuantizedVector[] | undefined;
  private filled: Promise<void> = Promise.resolve();

  constructor(
    private readonly embedder: Embedder,
    query: string,
    weights: ReadonlyMap<string, number>,
  ) {
    this.asked = queryWords(query, weights);
    this.total = this.asked.reduce((s, w) => s + weights.get(w.term)!, 0);
  }

  /** Where each word's row starts; words not met before get the next rows. */
  private place(words: readonly string[]): number[] {
    const q = this.asked.length;
    return words.map((w) => {
      let at = this.row.get(w);
      if (at === undefined) {
        if (this.waiting.length === 0) this.firstWaiting = this.row.size;
        this.row.set(w, (at = this.row.size * q));
        this.waiting.push(w);
      }
      return at;
    });
  }

  /** Where each of a record's words' rows starts: placed once per record object, so a record met ahead is not looked up again. */
  placeRecord(record: MemoryRecord): readonly number[] {
    let at = this.placed.get(record);
    if (at === undefined) this.placed.set(record, (at = this.place(termCounts(record).words)));
    return at;
  }

  /** Places the words of records met ahead of the ranking and starts filling their rows. */
  ahead(records: readonly MemoryRecord[]): void {
    if (this.total === 0) return;
    for (const r of records) this.placeRecord(r);
    this.fill();
  }

  /** Every row placed so far, filled. */
  async rows(): Promise<Float64Array> {
    this.fill();
    await this.filled;
    return this.near;
  }

  /** Starts the batch of the words waiting, after the batches before it. */
  private fill(): void {
    if (this.waiting.length === 0) return;
    const words = this.waiting;
    const first = this.firstWaiting;
    this.waiting = [];
    this.filled = this.filled.then(() => this.fillRows(words, first));
    // Awaited by rows(); a batch begun ahead for a search that failed meanwhile is nobody's to report.
    this.filled.catch(() => {});
  }

  private async fillRows(words: readonly string[], first: number): Promise<void> {
    const q = this.asked.length;
    const lookup = wordVectorsOf(this.embedder);
    // The query words' vectors come with the first batch: one lookup, so one embedder call at most.
    const asked = this.queryVectors === undefined ? this.asked.map((w) => w.word) : [];
    const vectors = await lookup.vectorsOf([...asked, ...words]);
    this.queryVectors ??= vectors.slice(0, q);
    const products = await nearness(this.queryVectors, vectors.slice(asked.length));
    const end = (first + words.length) * q;
    if (this.near.length < end) {
      const grown = new Float64Array(Math.max(end, 2 * this.near.length));
      grown.set(this.near);
      this.near = grown;
    }
    this.near.set(products, first * q);
  }
}

/**
 * Each word's nearness to each query word, a row per word: the cosine above
 * `softFloor`, scaled to [0, 1]. The products are most of a search's
 * ranking work, so they are computed natively, all of a batch in one call,
 * over the words' quantized vectors.
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

/**
 * A search's soft table, made once its query terms' weights are known, with
 * a hook for the records a store finds before the query's vector: their
 * terms are counted and their words' rows begun while the query embeds.
 */
export function softTableAhead(embedder: Embedder, query: string, weights: Promise<ReadonlyMap<string, number>>): { table: Promise<SoftTable>; early: (records: readonly MemoryRecord[]) => void } {
  const table = weights.then((w) => new SoftTable(embedder, query, w));
  table.catch(() => {});
  return {
    table,
    early: (records) => {
      for (const r of records) termCounts(r);
      table.then((t) => t.ahead(records)).catch(() => {});
    },
  };
}
