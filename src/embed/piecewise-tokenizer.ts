/**
 * The Universal Sentence Encoder's tokenizer (in @energetic-ai/embeddings
 * 0.2.0) copies the rest of the text at every position, so its cost grows
 * with the square of the length: measured on this machine, 16 KiB of prose
 * tokenizes in about 0.2 s and 64 KiB in about 14 s, while the model itself
 * stays cheap. The tokenizer marks each word start with U+2581 and no piece
 * of its vocabulary holds that mark past its first character, so the best
 * segmentation never crosses a space: tokenizing the text in space-separated
 * pieces and concatenating the ids gives the same ids in linear time.
 */

/** The tokenizer surface the model calls. */
export interface TextTokenizer {
  encode(text: string): number[];
}

/** Characters (UTF-16 units) per piece; 512 measured fastest at 64 KiB. */
export const TOKENIZER_PIECE_CHARS = 512;

/**
 * Splits `text` into pieces of at most `max` UTF-16 units, each cut at a
 * single ASCII space that is dropped (the tokenizer re-adds the word mark
 * at the start of every piece, which is exactly what the space became).
 * A run with no space in `max` units is cut hard, never inside a surrogate
 * pair; that one cut adds a word boundary the whole text would not have.
 */
export function tokenizerPieces(text: string, max = TOKENIZER_PIECE_CHARS): string[] {
  if (text.length <= max) return [text];
  const out: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    const space = text.lastIndexOf(" ", start + max);
    if (space > start) {
      out.push(text.slice(start, space));
      start = space + 1;
    } else {
      let cut = start + max;
      const unit = text.charCodeAt(cut - 1);
      if (unit >= 0xd800 && unit <= 0xdbff) cut--;
      out.push(text.slice(start, cut));
      start = cut;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** A tokenizer that encodes piece by piece, so its cost is linear in the length. */
export function piecewise(inner: TextTokenizer, max = TOKENIZER_PIECE_CHARS): TextTokenizer {
  return {
    encode(text: string): number[] {
      const pieces = tokenizerPieces(text, max);
      if (pieces.length === 1) return inner.encode(text);
      const ids: number[] = [];
      for (const p of pieces) for (const id of inner.encode(p)) ids.push(id);
      return ids;
    },
  };
}
