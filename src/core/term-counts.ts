import { searchableText, termCountsAndWords } from "../model/lexical-terms.js";
import type { MemoryRecord } from "../model/record.js";
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
 * Bounded by entries and by characters; past either, the oldest eighth goes.
 */
export const COUNTS_MAX_ENTRIES = 16_384;
export const COUNTS_MAX_CHARS = 4 * 1024 * 1024;
const BY_ID = new Map<string, { text: string; counts: TermCounts }>();
let chars = 0;

export function termCounts(record: MemoryRecord): TermCounts {
  const kept = COUNTED.get(record);
  if (kept) return kept;
  const text = searchableText(record);
  const known = BY_ID.get(record.id);
  let counts: TermCounts;
  if (known !== undefined && known.text === text) counts = known.counts;
  else {
    counts = termCountsAndWords(text, RANKING.softRecordWords);
    remember(record.id, text, counts);
  }
  COUNTED.set(record, counts);
  return counts;
}

function remember(id: string, text: string, counts: TermCounts): void {
  const old = BY_ID.get(id);
  if (old !== undefined) {
    BY_ID.delete(id);
    chars -= old.text.length;
  }
  // A text over a sixteenth of the budget would push out many small ones for one record.
  if (text.length > COUNTS_MAX_CHARS / 16) return;
  BY_ID.set(id, { text, counts });
  chars += text.length;
  if (BY_ID.size > COUNTS_MAX_ENTRIES || chars > COUNTS_MAX_CHARS) {
    let drop = Math.max(1, Math.floor(BY_ID.size / 8));
    for (const [key, entry] of BY_ID) {
      if (drop-- <= 0 && chars <= COUNTS_MAX_CHARS) break;
      BY_ID.delete(key);
      chars -= entry.text.length;
    }
  }
}

/** How many records' counts are kept across searches (for tests). */
export function countsKept(): number {
  return BY_ID.size;
}
