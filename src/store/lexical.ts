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
  // A hand-rolled scan over the lowercased text: this runs for every
  // candidate of every search, and splitting on a regex cost several times more.
  const lower = text.toLowerCase();
  const seen = new Set<string>();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 0;
    const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      const t = lower.slice(start, i);
      if (!STOP_WORDS.has(t)) seen.add(t);
      start = -1;
    }
  }
  return [...seen];
}
