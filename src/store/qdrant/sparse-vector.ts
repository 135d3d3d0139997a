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

function toSparse(tokens: readonly string[]): SparseVector | undefined {
  const byIndex = new Map<number, number>();
  for (const t of tokens) byIndex.set(tokenIndex(t), 1);
  if (byIndex.size === 0) return undefined;
  const indices = [...byIndex.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map(() => 1) };
}

/**
 * A record's lexical vector: the embedded store's tokens of its content and
 * tags (the same words its full-text table holds), each weighted 1 since the
 * tokenizer deduplicates. Qdrant's `idf` modifier supplies the rarity
 * weight at query time, so a match scores the sum of its words' IDF.
 */
export function documentSparse(content: string, tags: readonly string[]): SparseVector | undefined {
  return toSparse(lexicalTokens(`${content} ${tags.join(" ")}`));
}

/** A query's lexical vector, from the same tokenizer. */
export function querySparse(text: string): SparseVector | undefined {
  return toSparse(lexicalTokens(text));
}
