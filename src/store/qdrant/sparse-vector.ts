import { lexicalTokens } from "../lexical.js";

export type SparseVector = { indices: number[]; values: number[] };

/** FNV-1a, 32 bits: a token's dimension in the sparse vector. Collisions only merge two rare words' weights. */
function tokenIndex(token: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) {
    h ^= token.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** BM25's constants as SQLite FTS5 uses them, so the lexical lane prefers the documents the embedded store's does. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * The average document length BM25 normalises by. Qdrant keeps no length
 * statistics, so engram fixes one; a longer document still weighs less
 * than a shorter one with the same words, as in FTS5.
 */
export const BM25_AVG_WORDS = 16;

function toSparse(weights: ReadonlyMap<string, number>): SparseVector | undefined {
  const byIndex = new Map<number, number>();
  for (const [t, w] of weights) byIndex.set(tokenIndex(t), (byIndex.get(tokenIndex(t)) ?? 0) + w);
  if (byIndex.size === 0) return undefined;
  const indices = [...byIndex.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((i) => byIndex.get(i)!) };
}

/**
 * A record's lexical vector over the embedded store's tokens of its content
 * and tags (the words its full-text table ranks): each token weighs its BM25
 * term-frequency part, tf·(k1+1) / (tf + k1·(1 − b + b·words/avg)), with
 * `words` every word of the text as FTS5 counts them. Qdrant's `idf`
 * modifier multiplies in the rarity at query time, so a match scores BM25.
 */
export function documentSparse(content: string, tags: readonly string[]): SparseVector | undefined {
  const text = `${content} ${tags.join(" ")}`;
  const tokens = new Set(lexicalTokens(text));
  if (tokens.size === 0) return undefined;
  const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const tf = new Map<string, number>();
  for (const w of words) if (tokens.has(w)) tf.set(w, (tf.get(w) ?? 0) + 1);
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * words.length) / BM25_AVG_WORDS);
  const weights = new Map<string, number>();
  for (const t of tokens) {
    const n = tf.get(t) ?? 1;
    weights.set(t, (n * (BM25_K1 + 1)) / (n + norm));
  }
  return toSparse(weights);
}

/** A query's lexical vector, from the same tokenizer: each query word counts once. */
export function querySparse(text: string): SparseVector | undefined {
  return toSparse(new Map(lexicalTokens(text).map((t) => [t, 1])));
}
