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

function toSparse(weights: ReadonlyMap<string, number>): SparseVector | undefined {
  const byIndex = new Map<number, number>();
  for (const [t, w] of weights) byIndex.set(tokenIndex(t), (byIndex.get(tokenIndex(t)) ?? 0) + w);
  if (byIndex.size === 0) return undefined;
  const indices = [...byIndex.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((i) => byIndex.get(i)!) };
}

/**
 * A record's lexical vector over the embedded store's tokens of its content
 * and tags (the words its full-text table indexes): each distinct token
 * weighs 1, and Qdrant's `idf` modifier multiplies in its rarity at query
 * time, so a record scores the summed IDF of the query words it holds,
 * which is how the embedded store ranks its lexical candidates.
 */
export function documentSparse(content: string, tags: readonly string[]): SparseVector | undefined {
  return toSparse(new Map(lexicalTokens(`${content} ${tags.join(" ")}`).map((t) => [t, 1])));
}

/** A query's lexical vector, from the same tokenizer: each query word counts once. */
export function querySparse(text: string): SparseVector | undefined {
  return toSparse(new Map(lexicalTokens(text).map((t) => [t, 1])));
}
