import { IN_LIST_MAX, type StoreHandle } from "./handle.js";
import type { Mirror } from "./mirror.js";

/** Most terms kept: past it, a term read is not kept. */
export const FREQUENCIES_MAX = 100_000;

/** Writes after which the kept counts are dropped and read afresh. */
export const FREQUENCIES_STALE_WRITES = 5_000;

/** Terms read from the vocabulary per slice of a fill, the event loop free in between. */
const FILL_SLICE = 2_000;

/**
 * How many records hold each term, kept in memory. The counts steer which
 * records are lexical candidates and weigh the ranking's terms, where a
 * count a few thousand writes old ranks the same: so they are kept until
 * FREQUENCIES_STALE_WRITES writes have passed, then dropped. A term no
 * record holds is never kept: the next write may bring it, and a search for
 * it must find that record.
 *
 * A term's count is read from the vocabulary by walking its posting list,
 * so a common term costs a search tens of microseconds each time it is
 * missed, and the feedback terms of a search are mostly common terms seen
 * for the first time. A warmed store therefore fills the table from the
 * whole vocabulary in the background (`fill`), in slices by term, keeping
 * the terms more than one record holds: the rest are most of a vocabulary,
 * cheap to look up, and seldom asked for.
 */
export class DocumentFrequencies {
  private readonly kept = new Map<string, number>();
  private keptAt = 0;
  /** Counts the drops, so a fill that spans one starts over. */
  private drops = 0;
  /** Set once a fill has run: a table dropped after that is filled again. */
  private filled = false;
  private filling: Promise<void> | undefined;

  constructor(
    private readonly h: StoreHandle,
    private readonly m: Mirror,
  ) {}

  /** Each term's count of holders, 0 for a term no record holds; what is not kept is read in one query per IN_LIST_MAX terms. */
  of(terms: readonly string[]): Map<string, number> {
    this.dropWhenStale();
    const out = new Map<string, number>();
    const missing: string[] = [];
    for (const t of new Set(terms)) {
      const n = this.kept.get(t);
      if (n === undefined) missing.push(t);
      else out.set(t, n);
    }
    for (let i = 0; i < missing.length; i += IN_LIST_MAX) {
      const part = missing.slice(i, i + IN_LIST_MAX);
      for (const t of part) out.set(t, 0);
      const rows = this.h.stmt(`SELECT term, doc FROM records_terms_vocab WHERE term IN (${part.map(() => "?").join(",")})`).all(...part) as { term: string; doc: number }[];
      for (const r of rows) {
        out.set(r.term, r.doc);
        if (this.kept.size < FREQUENCIES_MAX) this.kept.set(r.term, r.doc);
      }
    }
    return out;
  }

  /** How many terms are kept (for tests). */
  get size(): number {
    return this.kept.size;
  }

  /**
   * Reads the vocabulary's terms held by more than one record into the
   * table, in slices that yield to the event loop, until the table is full
   * or the store closes. One fill at a time; resolves when it ends.
   */
  fill(): Promise<void> {
    this.filled = true;
    this.filling ??= this.fillInSlices().finally(() => {
      this.filling = undefined;
    });
    return this.filling;
  }

  private async fillInSlices(): Promise<void> {
    const slice = this.h.stmt("SELECT term, doc FROM records_terms_vocab WHERE term > ? ORDER BY term LIMIT ?");
    let after = "";
    let drops = this.drops;
    for (;;) {
      if (!(await this.h.yieldSlice())) return;
      this.dropWhenStale();
      if (drops !== this.drops) {
        drops = this.drops;
        after = "";
      }
      const rows = slice.all(after, FILL_SLICE) as { term: string; doc: number }[];
      for (const r of rows) if (r.doc > 1 && this.kept.size < FREQUENCIES_MAX) this.kept.set(r.term, r.doc);
      if (rows.length < FILL_SLICE || this.kept.size >= FREQUENCIES_MAX) return;
      after = rows[rows.length - 1]!.term;
    }
  }

  private dropWhenStale(): void {
    if (this.m.lastSeq - this.keptAt <= FREQUENCIES_STALE_WRITES) return;
    this.kept.clear();
    this.drops++;
    this.keptAt = this.m.lastSeq;
    if (this.filled) void this.fill();
  }
}
