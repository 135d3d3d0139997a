import type { MemoryRecord, ScoredRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";

/** Which recall-gate conditions a read relaxes. */
export type GateRelax = { archived: boolean; superseded: boolean; scheduled: boolean };

export const GATE_ON: GateRelax = Object.freeze({ archived: false, superseded: false, scheduled: false });

/**
 * A filtered read. The store applies authorization itself (owner, shared,
 * anonymous) so no caller can forget it.
 */
export type RecordQuery = {
  subject: Subject;
  /** undefined spans every readable scope; only the core produces that. */
  scope?: string;
  /** Restrict to scopes beginning with this prefix (discovery:, rule:). */
  scopePrefix?: string;
  /** Restrict to these exact scopes. */
  scopes?: readonly string[];
  categories?: readonly string[];
  /** AND. */
  tags?: readonly string[];
  visibility?: "private" | "shared";
  kind?: string;
  /** Records citing this `kind\u0000ref` pair (see citationKey). */
  citation?: string;
  excludeIds?: readonly string[];
  /** Only records in some gated state (archived, superseded, windowed); used with a lifted gate. */
  onlyGated?: boolean;
  /** Only these record ids. */
  ids?: readonly string[];
  /** Operator verbs only: every record regardless of owner (they open the store directly). */
  allOwners?: boolean;
  /** Operator verbs only, with allOwners: records of exactly this owner; null: those with no owner key at all (pre-isolation). */
  owner?: string | null;
  /** Only the caller's own records (no shared grant). */
  ownerOnly?: boolean;
  createdAfter?: string;
  createdBefore?: string;
  /** null means no recall gate at all (window states are filtered separately). */
  gate: GateRelax | null;
  /** Window state filter for list_scheduled (see record-filter.ts windowStateOf). */
  windowState?: "scheduled" | "active" | "expired" | "all";
  /** Unix seconds used for every clock comparison of this read. */
  now: number;
};

export type ListPage = {
  order: "desc" | "asc";
  offset?: number;
  limit: number;
  /** Resume strictly after this position (cursor paging). */
  cursor?: { c: string; seen: readonly string[] };
};

/** One record of a bulk import: the whole payload, its vector, and the schema version to write it at. */
export type ImportRow = { record: MemoryRecord; vector: Float32Array; version: number | null };

/** One neighbour of a record: another record's id and its cosine to the record's stored vector. */
export type Neighbour = { id: string; score: number };

export type ResolveResult = { kind: "id"; id: string } | { kind: "not_found" } | { kind: "ambiguous" };

export type SchemaHistogram = { versions: Map<number, number>; absent: number; total: number };

/** A part of a store that can be not ready yet (see `Store.readiness`). */
export type StorePart = "store" | "store_writes" | "index" | "terms";

/** A search's query vector, or the promise of it while the query embeds. */
export type QueryVector = Float32Array | Promise<Float32Array>;

/** Takes the candidates a store finds before it has the query vector (Store.search). */
export type EarlyCandidates = (records: readonly MemoryRecord[]) => void;

/**
 * The storage port. Two implementations (embedded SQLite, Qdrant) pass one
 * conformance suite. Every write goes through the record codec, which stamps
 * the current schema_version.
 */
export interface Store {
  readonly kind: "embedded" | "qdrant";
  close(): Promise<void>;
  /**
   * Prepares search structures ahead of the first query, in the background:
   * reads stay correct while it runs. Resolves when they are ready.
   */
  warm(): Promise<void>;
  /** The parts still warming up; empty when ready. Absent means always ready. */
  readiness?(): StorePart[];

  /** Raw fetch without authorization: idempotency checks and internal use only. */
  getRaw(id: string): Promise<MemoryRecord | undefined>;
  /** UUID fast path, else a short-id lookup across the whole store. */
  resolve(input: string): Promise<ResolveResult>;
  /** The record if the subject may read it. Read-only: a store may hand every caller the same frozen record. */
  getReadable(id: string, subject: Subject): Promise<MemoryRecord | undefined>;
  /** The record if the subject owns it (the write gate). Read-only, as getReadable's. */
  getOwned(id: string, subject: Subject): Promise<MemoryRecord | undefined>;
  countShortId(shortId: string): Promise<number>;

  /**
   * Inserts a new record and its vector, only if its id is free: false, and
   * nothing written, when a record already has it (a keyed create racing
   * another, or its own retry). Never overwrites.
   */
  create(record: MemoryRecord, vector: Float32Array): Promise<boolean>;
  /**
   * Replaces a record's payload (and its vector, when one is given) only if
   * the stored record still carries `record.revision`, the one it was read
   * with (absent matches a record written before revisions). Otherwise
   * throws RevisionConflictError, `gone` when the record no longer exists,
   * and writes nothing. Every write stamps a fresh revision. A store
   * without transactions honours this with a conditional upsert on the
   * revision and a read-back of the point.
   */
  replace(record: MemoryRecord, vector?: Float32Array): Promise<void>;
  /**
   * Inserts `record` and back-stamps superseded_by on every target in one
   * atomic step, re-checking ownership and live-head state under the lock.
   * Throws TargetsGoneError, TargetsSupersededError, or RecordExistsError
   * (the new record's id is taken) and writes nothing. Of overlapping
   * supersedes of one target, exactly one succeeds.
   */
  supersede(record: MemoryRecord, vector: Float32Array, targetIds: readonly string[], subject: Subject): Promise<void>;
  /**
   * Writes whole records with their vectors as one atomic batch (import):
   * each at the schema version and revision it carries (null: none), all
   * or none, overwriting whatever has the same id.
   */
  importBatch(rows: readonly ImportRow[]): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** Deletes the subject's own records in one scope; returns how many. */
  deleteOwnedInScope(scope: string, subject: Subject): Promise<number>;
  /**
   * Operator sweeps only: deletes these records by id, whoever owns them, in
   * one transaction where the store has them (Qdrant deletes a page at a
   * time); returns how many of them existed. Ids that name nothing are skipped.
   */
  deleteMany(ids: readonly string[]): Promise<number>;

  list(query: RecordQuery, page: ListPage): Promise<{ records: MemoryRecord[]; total: number }>;
  count(query: RecordQuery): Promise<number>;
  /**
   * Hybrid recall candidates, all passing the query's filter: up to
   * `candidates` vector neighbours plus up to `candidates` records holding
   * the text's rarest terms, each scored by its cosine to `vector`, in
   * [-1, 1]. The core ranks them (core/rank.ts). `vector` may still be on
   * its way (the query being embedded): a store does what needs no vector
   * first, and its answer is as of when it had the vector. A store that
   * finds candidates before it has the vector hands them to `early`, once,
   * so the caller can start on them meanwhile; the answer may then differ
   * from them if a write lands before the vector comes.
   */
  search(query: RecordQuery, vector: QueryVector, text: string, candidates: number, early?: EarlyCandidates): Promise<ScoredRecord[]>;
  /**
   * Each term's inverse document frequency over the whole store, as
   * Qdrant's `idf` modifier computes it (term-weight.ts); a term no record
   * holds is left out.
   */
  termWeights(terms: readonly string[]): Promise<Map<string, number>>;
  /** How many records `termWeights` counts over: the N of its formula. */
  termRecordCount(): Promise<number>;
  /** Each tag counted once per matching record. */
  tagCounts(query: RecordQuery): Promise<Map<string, number>>;
  /** Every scope holding records the subject may read, with their counts (no recall gate). */
  scopeCounts(subject: Subject): Promise<{ scopes: { scope: string; count: number }[]; approximate: boolean }>;
  vectorOf(id: string): Promise<Float32Array | undefined>;
  /**
   * Operator sweeps only (near-duplicates): for each of `ids`, up to `k`
   * records nearest to that record's stored vector, best first, among those
   * `query` admits, the record itself excluded, found through the store's
   * vector index (approximate on a large store), scored by exact cosine. An
   * id that names no record, or none the query admits, maps to nothing.
   * Reads only; no vector leaves the store.
   */
  neighbours(ids: readonly string[], k: number, query: RecordQuery): Promise<Map<string, Neighbour[]>>;

  /**
   * Counts one read of a record (access_count, last_accessed_at) without
   * writing: counts are written in batches within a second or so, and
   * always before close() returns.
   */
  noteAccess(id: string, at: string): void;
  /**
   * Writes every counted read now; resolves once they are written, so a
   * store that writes over the network has finished when it resolves.
   */
  flushAccess(): Promise<void>;

  /** Whole-store schema-version histogram (no owner filter). */
  schemaHistogram(): Promise<SchemaHistogram>;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
}
