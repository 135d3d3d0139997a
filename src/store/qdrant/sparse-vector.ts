import { distinctTerms, searchableText } from "../../model/lexical-terms.js";

export type SparseVector = { indices: number[]; values: number[] };

/** FNV-1a, 32 bits: a term's dimension in the sparse vector. Collisions only merge two rare terms' weights. */
export function termIndex(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function ones(terms: readonly string[]): SparseVector | undefined {
  const indices = [...new Set(terms.map(termIndex))].sort((a, b) => a - b);
  return indices.length === 0 ? undefined : { indices, values: indices.map(() => 1) };
}

/**
 * A record's sparse vector: a 1 for each distinct term of its content,
 * summary and tags (the tokenizer every lane shares). Qdrant's `idf`
 * modifier multiplies in each term's rarity at query time, so a query of
 * ones scores a record by the summed weight of the query terms it holds,
 * as the embedded store picks its term candidates, and a one-term query
 * scores any record holding the term by exactly that term's weight.
 */
export function documentSparse(record: { content: string; summary?: string; tags?: readonly string[] }): SparseVector | undefined {
  return ones(distinctTerms(searchableText(record)));
}

/** A query's sparse vector, from the same tokenizer: each query term counts once. */
export function querySparse(text: string): SparseVector | undefined {
  return ones(distinctTerms(text));
}

/** documentSparse over a stored payload, whatever it holds. */
export function payloadSparse(payload: Record<string, unknown>): SparseVector | undefined {
  const tags = Array.isArray(payload.tags) ? payload.tags.map(String) : [];
  return documentSparse({ content: String(payload.content ?? ""), summary: typeof payload.summary === "string" ? payload.summary : "", tags });
}
