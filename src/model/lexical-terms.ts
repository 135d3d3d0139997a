import { stemmer } from "stemmer";

/**
 * Words too common to say anything about a match: they would pull in most
 * records as lexical candidates and add noise to every lexical score.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an and are as at be been but by can did do does for from had has have how i if in into is it its me my of on or our " +
    "should so that the their them then there these they this to us was we were what when where which who why will with would you your")
    .split(" "),
);

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Each word's term is memoized, null for a stop word: a handful of regex
 * passes per word adds up over every candidate of every search, and one
 * lookup answers both whether a word counts and what it stems to.
 * Bounded, and simply dropped when full.
 */
const TERMS = new Map<string, string | null>();
const TERMS_MAX = 50_000;

function termOf(word: string): string | null {
  let s = TERMS.get(word);
  if (s === undefined) {
    if (TERMS.size >= TERMS_MAX) TERMS.clear();
    // Porter's rules are for English letters; numbers and other scripts stay as written.
    s = STOP_WORDS.has(word) ? null : /^[a-z]{3,}$/.test(word) ? stemmer(word) : word;
    TERMS.set(word, s);
  }
  return s;
}

/**
 * Calls `visit` with each lowercase run of letters and digits (any script)
 * that is not a stop word, and its term, in order and with repeats.
 */
function scanWords(text: string, visit: (word: string, term: string) => void): void {
  // A hand-rolled scan with an ASCII fast path: a regex split over every
  // candidate of every search cost several times more.
  const lower = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 0;
    let word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (!word && c >= 128) {
      const wide = c >= 0xd800 && c <= 0xdbff && i + 1 < lower.length;
      word = LETTER_OR_DIGIT.test(wide ? lower.slice(i, i + 2) : lower[i]!);
      if (word && wide) {
        if (start < 0) start = i;
        i++;
        continue;
      }
    }
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      const w = lower.slice(start, i);
      const t = termOf(w);
      if (t !== null) visit(w, t);
      start = -1;
    }
  }
}

/**
 * The lexical terms of a text, in order and with repeats: lowercase runs of
 * letters and digits (any script), stop words dropped, English words
 * stemmed so "painted" finds "painting". One tokenizer for the embedded
 * store's term index, the Qdrant store's sparse vectors and the core's
 * ranking, so the three always agree on what a term is.
 */
export function lexicalTerms(text: string): string[] {
  const out: string[] = [];
  scanWords(text, (_, t) => out.push(t));
  return out;
}

/** A word as written (lowercased) and the term it stems to. */
export type LexicalWord = { word: string; term: string };

/**
 * The distinct words of a text as written, first occurrence first, at most
 * `max` of them, each with its term: the same words `lexicalTerms` reads.
 */
export function lexicalWords(text: string, max: number): LexicalWord[] {
  const seen = new Set<string>();
  const out: LexicalWord[] = [];
  scanWords(text, (w, t) => {
    if (out.length >= max || seen.has(w)) return;
    seen.add(w);
    out.push({ word: w, term: t });
  });
  return out;
}

/**
 * What the ranking needs of a text, from one scan: how often each term
 * occurs, how many terms it holds, and its first `maxWords` distinct words
 * as written (`lexicalTerms` and `lexicalWords` read the same). The scan
 * (lowercasing, stop words, stems) is most of what either costs.
 */
export function termCountsAndWords(text: string, maxWords: number): { tf: Map<string, number>; length: number; words: string[] } {
  const tf = new Map<string, number>();
  const words: string[] = [];
  let length = 0;
  scanWords(text, (w, t) => {
    length++;
    tf.set(t, (tf.get(t) ?? 0) + 1);
    // At most maxWords to look through: cheaper than a set per text.
    if (words.length < maxWords && !words.includes(w)) words.push(w);
  });
  return { tf, length, words };
}

/** The distinct terms of a text, first occurrence first. */
export function distinctTerms(text: string): string[] {
  return [...new Set(lexicalTerms(text))];
}

/** What of a record is searchable by words: its content, its summary and its tags. */
export function searchableText(r: { content: string; summary?: string; tags?: readonly string[] }): string {
  return `${r.content} ${r.summary ?? ""} ${(r.tags ?? []).join(" ")}`;
}
