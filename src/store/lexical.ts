/**
 * Words too common to say anything about a match. Counting them let "and"
 * or "the" outrank a strong semantic hit in the rerank, so they are dropped
 * from both the lexical candidates and the overlap count.
 */
const STOP_WORDS = new Set(
  ("a an and are as at be been but by can did do does for from had has have how i if in into is it its me my of on or our " +
    "should so that the their them then there these they this to us was we were what when where which who why will with would you your")
    .split(" "),
);

/**
 * Tokens for lexical matching and the rerank: lowercase runs of [a-z0-9],
 * stop words removed, deduplicated so a repeated word does not count twice.
 */
export function lexicalTokens(text: string): string[] {
  const seen = new Set<string>();
  for (const t of text.toLowerCase().split(/[^a-z0-9]+/)) if (t && !STOP_WORDS.has(t)) seen.add(t);
  return [...seen];
}
