import type { MemoryRecord, ScoredRecord } from "../../model/record.js";
import { distinctTerms } from "../../model/lexical-terms.js";
import { matches } from "../record-filter.js";
import type { EarlyCandidates, QueryVector, RecordQuery } from "../store.js";
import { dot } from "../inner-products.js";
import { clampCosine, termWeight } from "../term-weight.js";
import { toFloat32 } from "../vector-bytes.js";
import { AdmittedShares } from "./admitted-shares.js";
import { DocumentFrequencies } from "./document-frequencies.js";
import { TopK } from "./exact-scan.js";
import { IN_LIST_MAX, type StoreHandle } from "./handle.js";
import type { Mirror } from "./mirror.js";
import type { VectorFilter, VectorHit } from "./vector/vector-index.js";
import type { VectorKeeper } from "./vector/vector-keeper.js";

/** Most records a query word may be held by and still be looked up for candidates (see selectiveTerms). */
const WORD_CEILING = 1000;

/**
 * The Store's search: candidates for the core to rank, from the vector
 * index (records it has not caught up with scored straight from SQLite)
 * and from the term index (the records holding the query's rarest terms),
 * each with its cosine to the query; and the weights of the query's terms
 * over the whole store.
 */
export class Search {
  constructor(
    private readonly h: StoreHandle,
    private readonly m: Mirror,
    private readonly keeper: VectorKeeper,
    /** Starts the term-index build when it is not complete and no warm-up runs (a process that never warms up: engram mcp). */
    private readonly warmTerms: () => void,
  ) {
    this.frequencies = new DocumentFrequencies(h, m);
  }

  /** How many records hold each term (document-frequencies.ts). */
  readonly frequencies: DocumentFrequencies;

  /** What share of the store each filter admits, kept between searches (admitted-shares.ts). */
  private readonly shares = new AdmittedShares();

  /**
   * The term lane needs no vector, so it runs first, its candidates read,
   * and only then is the vector awaited: a caller that hands over the
   * vector still being embedded has this part done meanwhile. Should the
   * mirror change while the vector comes, the term lane is run again over
   * what it holds then, so every candidate is as the store now has it.
   */
  async search(query: RecordQuery, vector: QueryVector, text: string, candidates: number, early?: EarlyCandidates): Promise<ScoredRecord[]> {
    this.m.sync();
    this.warmTerms();
    if (query.onlyGated && this.m.gatedRids.size === 0) return [];
    let terms = this.termLane(query, text, candidates);
    if (early !== undefined && terms.records.size > 0) early([...terms.records.values()]);
    const v = await vector;
    this.m.sync();
    if (query.onlyGated && this.m.gatedRids.size === 0) return [];
    if (this.m.generation !== terms.generation) terms = this.termLane(query, text, candidates);
    return this.vectorLane(query, v, candidates, terms.records);
  }

  /** The pool a query is confined to (one scope, the gated records), or undefined for the whole store. */
  private poolOf(query: RecordQuery): ReadonlySet<number> | undefined {
    return query.onlyGated ? this.m.gatedRids : query.scope !== undefined ? (this.m.ridsByScope.get(query.scope) ?? new Set<number>()) : undefined;
  }

  /** The term lane's candidates, read, by rid, and the mirror generation they were chosen at. */
  private termLane(query: RecordQuery, text: string, candidates: number): { generation: number; records: Map<number, MemoryRecord> } {
    const generation = this.m.generation;
    const lexical = this.termCandidates(text, candidates, this.poolOf(query), (rid) => {
      const a = this.m.attrs.get(rid);
      return !!a && matches(a, query);
    });
    return { generation, records: this.read(lexical, new Map()) };
  }

  /** Records by rid, from those decoded before or read from SQLite, added to `into`. */
  private read(rids: readonly number[], into: Map<number, MemoryRecord>): Map<number, MemoryRecord> {
    const unread: number[] = [];
    for (const rid of rids) {
      if (into.has(rid)) continue;
      const record = this.m.searched.get(rid);
      if (record === undefined) unread.push(rid);
      else into.set(rid, record);
    }
    for (let i = 0; i < unread.length; i += IN_LIST_MAX) {
      const part = unread.slice(i, i + IN_LIST_MAX);
      const rows = this.h.stmt(`SELECT rid, payload FROM records WHERE rid IN (${part.map(() => "?").join(",")})`).all(...part) as { rid: number; payload: string }[];
      for (const r of rows) into.set(r.rid, this.m.searched.keep(r.rid, r.payload));
    }
    return into;
  }

  /**
   * The vector lane, merged with the term lane's records: each candidate
   * scored by its cosine to the vector, best first, ties by id.
   */
  private vectorLane(query: RecordQuery, vector: Float32Array, candidates: number, lexical: Map<number, MemoryRecord>): ScoredRecord[] {
    const scored = new Map<number, number>();
    const pool = this.poolOf(query);
    const index = this.keeper.vectors();
    const pending = this.m.pending;
    const admits = (rid: number): boolean => {
      const a = this.m.attrs.get(rid);
      return !!a && (pool === undefined || pool.has(rid)) && matches(a, query);
    };
    // A known pool (one scope, the gated records) goes over as the candidate
    // list, so the index never asks the filter about records outside it;
    // the filter itself is then consulted only for the rows the index looks at.
    const group = this.m.groupsCurrent && !query.onlyGated ? query.scope : undefined;
    const filter: VectorFilter =
      pool !== undefined
        ? { candidates: pool, group, allow: pending.size === 0 ? (rid) => matches(this.m.attrs.get(rid)!, query) : (rid) => !pending.has(rid) && admits(rid) }
        : { allow: pending.size === 0 ? admits : (rid: number) => !pending.has(rid) && admits(rid), shareCell: this.shares.cellFor(query, this.m.generation) };
    let hits = index.search(vector, candidates, filter);
    // Mid catch-up: what the index may hold stale is scored from SQLite.
    if (pending.size > 0) hits = mergeHits(hits, this.scorePending([...pending].filter(admits), vector), candidates);
    for (const hit of hits) scored.set(hit.key, hit.score);

    if (lexical.size > 0) {
      const missing = [...lexical.keys()].filter((rid) => !scored.has(rid));
      // Scored from the index like every vector hit; only what it may hold stale is read from SQLite.
      const stale = missing.filter((rid) => pending.has(rid));
      for (const hit of index.scoreKeys(vector, stale.length === 0 ? missing : missing.filter((rid) => !pending.has(rid)))) scored.set(hit.key, hit.score);
      for (const hit of this.scorePending(stale, vector)) scored.set(hit.key, hit.score);
    }
    const records = this.read([...scored.keys()], lexical);
    const out: ScoredRecord[] = [];
    for (const [rid, score] of scored) {
      const record = records.get(rid);
      if (record !== undefined) out.push({ record, score: clampCosine(score) });
    }
    return out.sort((x, y) => y.score - x.score || (x.record.id < y.record.id ? -1 : 1));
  }

  termRecordCount(): number {
    this.m.sync();
    return this.m.attrs.size;
  }

  termWeights(terms: readonly string[]): Map<string, number> {
    this.m.sync();
    const total = Math.max(1, this.m.attrs.size);
    const weights = new Map<string, number>();
    for (const [t, n] of this.frequencies.of(terms)) if (n > 0) weights.set(t, termWeight(total, n));
    return weights;
  }

  /**
   * Records holding any of the query's selective terms, best first: by the
   * summed weight (term-weight.ts) of the terms each holds, then by id,
   * which is how Qdrant ranks a sparse vector of ones under its `idf`
   * modifier. Each term's posting list is read whole (short by
   * construction, the terms being rare). Returns at most `want` records,
   * all in `pool` (when given) and admitted by `admit`.
   */
  private termCandidates(text: string, want: number, pool: ReadonlySet<number> | undefined, admit: (rid: number) => boolean): number[] {
    const words = this.selectiveTerms(distinctTerms(text));
    if (words.length === 0) return [];
    const total = Math.max(1, this.m.attrs.size);
    const postings = this.h.stmt("SELECT rowid FROM records_terms WHERE records_terms MATCH ?").pluck();
    const weight = new Map<number, number>();
    for (const { t, n } of words) {
      const idf = termWeight(total, n);
      for (const rid of postings.all(`"${t}"`) as number[]) if (pool === undefined || pool.has(rid)) weight.set(rid, (weight.get(rid) ?? 0) + idf);
    }
    // Highest weight first: the filter is asked only about rows that could still make the cut.
    const top = new TopK(want);
    for (const [rid, w] of weight) if (top.wouldTake(rid, w) && admit(rid)) top.offer(rid, w);
    const kept = top.drain();
    if (kept.length < want) return kept.map((h) => h.key);
    // The records tied at the cut are chosen by id, as Qdrant's ranking picks among equal scores,
    // so both stores hand the core the same candidates.
    const cut = kept[kept.length - 1]!.score;
    const above = kept.filter((h) => h.score > cut).map((h) => h.key);
    const tied: { rid: number; id: string }[] = [];
    for (const [rid, w] of weight) if (w === cut && admit(rid)) tied.push({ rid, id: this.m.attrs.get(rid)!.id });
    tied.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    return [...above, ...tied.slice(0, want - above.length).map((t) => t.rid)];
  }

  /**
   * Query words worth a lexical lookup: only words held by at most
   * WORD_CEILING records, rarest first, at most eight. The lane hands over
   * at most 100 candidates, and a word held by ten times that many cannot
   * choose among its holders (they tie on it, and ties go by id), while its
   * posting list costs a search time in proportion to its length: a ceiling
   * that grew with the store (it was 1% of it) made a search at a million
   * records read ten times the rows it read at 100,000. The vector side, and
   * the rarer words of the same query, still find records holding a common
   * word; the core weighs every query word in every candidate.
   */
  private selectiveTerms(tokens: string[]): { t: string; n: number }[] {
    if (tokens.length === 0) return [];
    const ceiling = WORD_CEILING;
    const df = this.frequencies.of(tokens);
    return tokens
      .map((t) => ({ t, n: df.get(t) ?? 0 }))
      .filter((x) => x.n > 0 && x.n <= ceiling)
      .sort((x, y) => x.n - y.n)
      .slice(0, 8);
  }

  /** Exact cosine scores of records read straight from SQLite, for the ones the index has not caught up with. */
  private scorePending(rids: readonly number[], query: Float32Array): VectorHit[] {
    const qn = Math.sqrt(dot(query, query));
    const hits: VectorHit[] = [];
    for (const { rid, vector } of this.keeper.vectorsOf(rids)) {
      const v = toFloat32(vector);
      const norm = Math.sqrt(dot(v, v));
      if (norm > 0 && qn > 0) hits.push({ key: rid, score: dot(v, query) / (norm * qn) });
    }
    return hits;
  }
}

/** The best `k` of two hit lists, best first, equal scores by ascending key (as the index orders them). */
function mergeHits(a: readonly VectorHit[], b: readonly VectorHit[], k: number): VectorHit[] {
  return [...a, ...b].sort((x, y) => y.score - x.score || x.key - y.key).slice(0, k);
}
