import type { SqliteDatabase, SqliteStatement } from "./sqlite/index.js";
import type { MemoryRecord, ScoredRecord } from "../../model/record.js";
import type { Subject } from "../../model/subject.js";
import type { BatchBudget, MigrationStore, PassSource, RowRewrite, VersionedRow, WriteOutcome } from "../migrations/migration-store.js";
import type { Payload, StepContext } from "../migrations/step.js";
import type { EarlyCandidates, ImportRow, ListPage, Neighbour, QueryVector, RecordQuery, ResolveResult, SchemaHistogram, Store, StorePart } from "../store.js";
import { errorName, guardStoreFaults } from "../store-fault.js";
import type { AccessEntry } from "./access-coalescer.js";
import { AccessCounts } from "./access-counts.js";
import { EmbeddedMigrationStore } from "./embedded-migration-store.js";
import { StoreHandle, type EmbeddedStoreOptions } from "./handle.js";
import { Mirror } from "./mirror.js";
import { nearestOf } from "./neighbours.js";
import { RecordReads } from "./record-reads.js";
import { RecordWrites, type PreEncoded, type WriteMode } from "./record-writes.js";
import { Search } from "./search.js";
import { buildTermIndex, termIndexComplete } from "./term-index.js";
import { VectorKeeper } from "./vector/vector-keeper.js";

export type { EmbeddedStoreOptions } from "./handle.js";
export { SWEEP_WORKER_FROM } from "./embedded-migration-store.js";

/** The methods that write: a storage fault in one of them is `store_cannot_write` and starts an episode. */
const WRITE_METHODS: ReadonlySet<PropertyKey> = new Set([
  "create",
  "replace",
  "supersede",
  "delete",
  "deleteOwnedInScope",
  "deleteMany",
  "setMeta",
  "transaction",
  "writeAtVersion",
  "writeRecord",
  "pinBelow",
  "importBatch",
  "flushAccess",
  "addAccess",
  "rewritePass",
]);

/**
 * The default store: one SQLite file. Filters run over an in-memory mirror
 * of the indexed columns (one predicate for list, count, search and tags),
 * vectors live in an in-process index, and words in an FTS5 table kept by
 * triggers. A change log written by triggers lets every process that has the
 * file open (server, CLI operator verbs, migrations) catch up cheaply.
 *
 * This class is the store's face: it opens the parts over one handle
 * (handle.ts) and one mirror (mirror.ts), hands each call of the Store and
 * MigrationStore ports to the part it belongs to, and runs the lifecycle
 * (warm-up, readiness, close) across them.
 */
export class EmbeddedStore implements Store, MigrationStore {
  readonly kind = "embedded" as const;
  private readonly h: StoreHandle;
  private readonly mirror: Mirror;
  private readonly keeper: VectorKeeper;
  private readonly reads: RecordReads;
  private readonly writes: RecordWrites;
  private readonly searcher: Search;
  private readonly access: AccessCounts;
  private readonly migration: EmbeddedMigrationStore;
  /** Read once at open, then set when the background build finishes. */
  private termsComplete: boolean | undefined;

  /** Use `open`: it hands out the store with its faults mapped. */
  constructor(opts: EmbeddedStoreOptions) {
    this.h = new StoreHandle(opts);
    this.termsComplete = termIndexComplete(this.h.db);
    this.mirror = new Mirror(this.h);
    this.keeper = new VectorKeeper(this.h, this.mirror);
    this.reads = new RecordReads(this.h, this.mirror);
    this.writes = new RecordWrites(this.h, this.mirror);
    // A process that never warms up (engram mcp) still gets the term index built, in the background.
    this.searcher = new Search(this.h, this.mirror, this.keeper, () => {
      if (this.termsComplete === false && !this.keeper.warmingUp) void this.warm();
    });
    this.access = new AccessCounts(this.h, this.writes);
    this.migration = new EmbeddedMigrationStore(this.h, this.mirror, this.writes);
  }

  /**
   * Opens the store. What it returns maps every storage fault (a full disk,
   * a read-only file system, a damaged page) to `unavailable` or
   * `data_loss` through the one mapping in store-fault.ts.
   */
  static open(opts: EmbeddedStoreOptions): EmbeddedStore {
    const store = new EmbeddedStore(opts);
    return guardStoreFaults(store, WRITE_METHODS, store.h.health);
  }

  get database(): SqliteDatabase {
    return this.h.db;
  }

  /**
   * Resolves once the file is known sound; rejects with the StoreOpenError an
   * open-time check would have thrown. At once without an "alongside" check.
   */
  integrityChecked(): Promise<void> {
    return this.h.integrityChecked();
  }

  async close(): Promise<void> {
    if (!this.h.db.open) return;
    this.h.closed = true;
    this.h.health.stop();
    this.h.checking?.stop();
    // Both workers close their connections first, so this one is the last: it folds the WAL in and removes it.
    await this.migration.stop();
    try {
      // Counted reads are written before the file closes: a clean shutdown loses none.
      this.access.flush();
    } catch (err) {
      // A store that cannot write (disk full) loses the counts, never the close.
      this.h.log.warn("access counts not written at close", { error: errorName(err) });
    }
    this.keeper.saveAtClose();
    this.h.db.close();
  }

  /**
   * Loads the mirror and the vector index in the background, in slices that
   * yield to the event loop, and resolves once both are ready. Reads stay
   * correct meanwhile: the mirror finishes inline when a read needs it, and
   * records the index has not caught up with are scored from SQLite.
   */
  warm(): Promise<void> {
    return this.keeper.warm(() => this.buildTerms());
  }

  /**
   * The parts not ready yet: "store" until the mirror is loaded and the
   * integrity check has passed (for good if it found damage), "store_writes"
   * while the store cannot accept writes, "index" until the index has caught
   * up and its graph is built, "terms" until every record written before
   * the term index existed is in it.
   */
  readiness(): StorePart[] {
    const waiting: StorePart[] = [];
    const m = this.mirror;
    if (!m.loaded || this.h.checking || this.h.health.blocked()) waiting.push("store");
    if (!this.h.health.canWrite) waiting.push("store_writes");
    if (!m.index || m.pending.size > 0 || m.index.graphPending) waiting.push("index");
    if (!this.termsComplete) waiting.push("terms");
    return waiting;
  }

  /** Builds what the term index lacks, then keeps its terms' counts (document-frequencies.ts). */
  private async buildTerms(): Promise<void> {
    if (this.h.closed) return;
    if (!this.termsComplete) {
      await buildTermIndex(this.h.db, this.h.log, () => this.h.yieldSlice());
      this.termsComplete = termIndexComplete(this.h.db);
    }
    if (this.termsComplete) await this.searcher.frequencies.fill();
  }

  // ---- reads ------------------------------------------------------------------

  async getRaw(id: string): Promise<MemoryRecord | undefined> {
    return this.reads.getRaw(id);
  }

  async resolve(input: string): Promise<ResolveResult> {
    return this.reads.resolve(input);
  }

  async getReadable(id: string, subject: Subject): Promise<MemoryRecord | undefined> {
    return this.reads.getReadable(id, subject);
  }

  async getOwned(id: string, subject: Subject): Promise<MemoryRecord | undefined> {
    return this.reads.getOwned(id, subject);
  }

  async countShortId(shortId: string): Promise<number> {
    return this.reads.countShortId(shortId);
  }

  async vectorOf(id: string): Promise<Float32Array | undefined> {
    return this.reads.vectorOf(id);
  }

  async count(query: RecordQuery): Promise<number> {
    return this.reads.count(query);
  }

  async list(query: RecordQuery, page: ListPage): Promise<{ records: MemoryRecord[]; total: number }> {
    return this.reads.list(query, page);
  }

  async tagCounts(query: RecordQuery): Promise<Map<string, number>> {
    return this.reads.tagCounts(query);
  }

  async scopeCounts(subject: Subject): Promise<{ scopes: { scope: string; count: number }[]; approximate: boolean }> {
    return this.reads.scopeCounts(subject);
  }

  async schemaHistogram(): Promise<SchemaHistogram> {
    return this.reads.schemaHistogram();
  }

  async search(query: RecordQuery, vector: QueryVector, text: string, candidates: number, early?: EarlyCandidates): Promise<ScoredRecord[]> {
    return this.searcher.search(query, vector, text, candidates, early);
  }

  async termWeights(terms: readonly string[]): Promise<Map<string, number>> {
    return this.searcher.termWeights(terms);
  }

  async termRecordCount(): Promise<number> {
    return this.searcher.termRecordCount();
  }

  async neighbours(ids: readonly string[], k: number, query: RecordQuery): Promise<Map<string, Neighbour[]>> {
    return nearestOf(this.mirror, this.keeper, ids, k, query);
  }

  // ---- writes -----------------------------------------------------------------

  async create(record: MemoryRecord, vector: Float32Array): Promise<boolean> {
    return this.writes.create(record, vector);
  }

  async replace(record: MemoryRecord, vector?: Float32Array): Promise<void> {
    this.writes.replace(record, vector);
  }

  async supersede(record: MemoryRecord, vector: Float32Array, targetIds: readonly string[], subject: Subject): Promise<void> {
    this.writes.supersede(record, vector, targetIds, subject);
  }

  async delete(id: string): Promise<boolean> {
    return this.writes.delete(id);
  }

  async deleteOwnedInScope(scope: string, subject: Subject): Promise<number> {
    return this.writes.deleteOwnedInScope(scope, subject);
  }

  async deleteMany(ids: readonly string[]): Promise<number> {
    return this.writes.deleteMany(ids);
  }

  async importBatch(rows: readonly ImportRow[]): Promise<void> {
    this.writes.importBatch(rows);
  }

  /** See RecordWrites.writeRecord: the one place a record row is written. */
  writeRecord(
    record: MemoryRecord | PreEncoded,
    vector?: Float32Array,
    version?: number | null,
    mode: WriteMode = "upsert",
    revision: "fresh" | "carried" = "fresh",
  ): boolean {
    return this.writes.writeRecord(record, vector, version, mode, revision);
  }

  /** Runs fn in one SQLite transaction and refreshes the mirror afterwards. */
  transaction<T>(fn: () => T): T {
    return this.writes.transaction(fn);
  }

  noteAccess(id: string, at: string): void {
    this.access.note(id, at);
  }

  /** In-process, so the counts are written when this returns; the promise is the port's. */
  async flushAccess(): Promise<void> {
    this.access.flush();
  }

  /** See AccessCounts.addAccess. */
  addAccess(entries: readonly AccessEntry[]): void {
    this.access.addAccess(entries);
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.h.getMeta(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.h.setMeta(key, value);
  }

  // ---- migrations (embedded-migration-store.ts) -------------------------------

  async pinBelow(target: number): Promise<number> {
    return this.migration.pinBelow(target);
  }

  async pendingCount(): Promise<number> {
    return this.migration.pendingCount();
  }

  async countBelow(target: number, pinnedOnly: boolean): Promise<number> {
    return this.migration.countBelow(target, pinnedOnly);
  }

  async scanPinned(target: number, budget: BatchBudget, visit: (row: VersionedRow, ctx: StepContext) => Payload | void, shipped: boolean): Promise<void> {
    return this.migration.scanPinned(target, budget, visit, shipped);
  }

  computeRevertAhead(to: number, visit: (row: VersionedRow) => Payload | undefined): void {
    this.migration.computeRevertAhead(to, visit);
  }

  async countAbove(version: number): Promise<number> {
    return this.migration.countAbove(version);
  }

  async versionHistogramAbove(version: number): Promise<Map<number, number>> {
    return this.migration.versionHistogramAbove(version);
  }

  async rewritePass(source: PassSource, budget: BatchBudget, version: number, rewrite: RowRewrite): Promise<WriteOutcome[]> {
    return this.migration.rewritePass(source, budget, version, rewrite);
  }
}
