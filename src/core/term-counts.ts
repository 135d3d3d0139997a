import { searchableText, termCountsAndWords } from "../model/lexical-terms.js";
import type { MemoryRecord } from "../model/record.js";
import { SizedCache } from "../model/sized-cache.js";
import { RANKING } from "./rank-constants.js";

/** A record's term frequencies and length in terms, and the words soft term matches look at (rank-soft.ts). */
export type TermCounts = { tf: Map<string, number>; length: number; words: readonly string[] };

/**
 * Each record object is counted once: a search ranks the same candidates in
 * several passes, and a store never changes a record it has handed out (it
 * hands out frozen records or fresh copies), so the counts stay true.
 */
const COUNTED = new WeakMap<MemoryRecord, TermCounts>();

/**
 * Across searches, by record id: the same record comes back as a candidate
 * of many searches, each time as a new object, and scanning its text was
 * the ranking's largest cost. An entry holds the text it was counted from
 * and is used only while the record's searchable text is still exactly
 * that, so an update is counted afresh whatever the store says of it.
 * Bounded by entries and by characters (sized-cache.ts).
 */
export const COUNTS_MAX_ENTRIES = 16_384;
export const COUNTS_MAX_CHARS = 4 * 1024 * 1024;
const BY_ID = new SizedCache<string, { text: string; counts: TermCounts }>(COUNTS_MAX_ENTRIES, COUNTS_MAX_CHARS);

export function termCounts(record: MemoryRecord): TermCounts {
  const kept = COUNTED.get(record);
  if (kept) return kept;
  const text = searchableText(record);
  const known = BY_ID.get(record.id);
  let counts: TermCounts;
  if (known !== undefined && known.text === text) counts = known.counts;
  else {
    counts = termCountsAndWords(text, RANKING.softRecordWords);
    BY_ID.set(record.id, { text, counts }, text.length);
  }
  COUNTED.set(record, counts);
  return counts;
}

/** How many records' counts are kept across searches (for tests). */
export function countsKept(): number {
  return BY_ID.size;
}
