import { randomUUID } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Logger } from "../../model/logger.js";
import type { MemoryRecord, ScoredRecord } from "../../model/record.js";
import type { Subject } from "../../model/subject.js";
import { PayloadCache } from "./payload-cache.js";
import { deepFreeze } from "../../model/deep-freeze.js";
import { decodeRecord, encodeRecord, type IndexedColumns } from "../codec.js";
import { distinctTerms } from "../../model/lexical-terms.js";
import { buildTermIndex, dropWordIndex, markTermIndexIfEmpty, registerTermFunction, termIndexComplete } from "./term-index.js";
import { clampCosine, termWeight } from "../term-weight.js";
import { citationKey, matches, readable, type RecordAttrs } from "../record-filter.js";
import { CHANGE_LOG_HEAD_SQL, MIRRORED_COLUMNS, SCHEMA_SQL } from "./sqlite-schema.js";
import { upgradeLayout, upgradeUpdateTriggers } from "./sqlite-layout.js";
import type { ImportRow, ListPage, RecordQuery, ResolveResult, SchemaHistogram, Store, StorePart } from "../store.js";
import { isUuid } from "../uuid.js";
import { toFloat32 } from "../vector-bytes.js";
import { META_DATABASE_ID, META_WRITE_PROBE } from "../meta-keys.js";
import { RecordExistsError, RevisionConflictError, TargetsGoneError, TargetsSupersededError } from "../store-errors.js";
import { errorName, faultCause, guardStoreFaults, storeFaultOf } from "../store-fault.js";
import { quickCheckInWorker } from "./integrity-check.js";
import { WriteHealth } from "./write-health.js";
import { damagedRefusal, markHasRecords, openRefusal, prepareDataDir, refuseEmptyWithRecords, type StoreOpenError } from "./open-refusal.js";
import type { BatchBudget, MigrationStore, PassSource, RowRewrite, VersionedRow, WriteOutcome } from "../migrations/migration-store.js";
import type { Payload, StepContext } from "../migrations/step.js";
import { TopK } from "./exact-scan.js";
import { MigrationStage, STAGE_MAX_CHARS } from "./migration-stage.js";
import { canBeQuiet, CHUNK_ROWS_SQL, mirroredValues, scanChunk, type RowSource, type SweepDirection, type SweepRow } from "./sweep-row.js";
import { SweepChunks, type ComputeHere } from "./sweep-chunks.js";
import { WalCheckpointer } from "./wal-checkpointer.js";
import { ascendingShortIdValues } from "../../model/short-id.js";
import { VectorIndex, type SnapshotOrigin, type VectorFilter, type VectorHit } from "./vector-index.js";
import { AccessCoalescer, type AccessEntry } from "./access-coalescer.js";

/** Every column writeRecord sets besides the id, in binding order. */
const UPDATE_COLUMNS = [
  "short_id",
  "owner",
  "scope",
  "visibility",
  "category",
  "kind",
  "created_at",
  "not_before",
  "not_after",
  "superseded_by",
  "archived_at",
  "schema_version",
  "payload",
] as const satisfies readonly (keyof IndexedColumns)[];

/** A row's indexed columns as stored, for an update that may leave unchanged ones (and their index) alone. */
type StoredIndexed = { short_id: string | null; schema_version: number | null; rid?: number };

/**
 * How writeRecord treats a row already at the record's id (see there).
 * `quiet` (with `stored` only): the caller has checked that the write keeps
 * every mirrored column, the content and the tags, so the UPDATE sets only
 * short_id, schema_version and payload and fires no trigger.
 */
type WriteMode = "upsert" | "insert" | "update" | { stored: StoredIndexed; quiet?: boolean } | { expect: string | null };

/** What a quiet write sets, besides the id it finds the row by. */
type QuietColumns = Pick<IndexedColumns, "id" | "short_id" | "schema_version" | "payload">;

/**
 * A row the codec has already encoded (a migration preflight does it ahead
 * of the pass that writes it). A quiet write needs only the columns it sets,
 * so that is all a preflight keeps of it.
 */
class PreEncoded {
  constructor(
    readonly columns: IndexedColumns | QuietColumns,
    readonly full: boolean,
  ) {}
}

type ScopeStats = { byOwner: Map<string, number>; sharedByOwner: Map<string, number>; shared: number };

function isGated(a: RecordAttrs): boolean {
  return a.archived || a.superseded || a.notBefore !== null || a.notAfter !== null;
}

/** Records from which a freshly built or caught-up index is saved at once rather than at close. */
const SNAPSHOT_AT = 4096;

/** Mirror rows read per background slice (a few milliseconds each). */
const MIRROR_SLICE = 2000;
/** Vectors applied per background catch-up slice. */
const CATCH_UP_SLICE = 500;
/** Graph nodes inserted per background slice: about 15 ms of native work at 512 dimensions. */
const GRAPH_SLICE = 64;
/** Records per background slice that get their scope group in a loaded index. */
const GROUP_SLICE = 1000;
/** A progress line at most this often while the index catches up or builds. */
const PROGRESS_EVERY_MS = 2000;
/** How much of the file the open-time integrity check maps (SQLite caps it at its compiled maximum). */
const CHECK_MMAP_BYTES = 2 ** 40;
/** SQLite's bound-parameter limit, with room to spare. */
const IN_LIST_MAX = 500;

type Row = {
  rid: number;
  id: string;
  owner: string | null;
  scope: string;
  visibility: string;
  category: string;
  kind: string;
  created_at: string;
  not_before: number | null;
  not_after: number | null;
  superseded_by: string | null;
  archived_at: string | null;
  tags: string | null;
  citations: string | null;
};

const ATTR_COLUMNS = `rid, id, owner, scope, visibility, category, kind, created_at, not_before, not_after,
  superseded_by, archived_at, json_extract(payload, '$.tags') AS tags, json_extract(payload, '$.citations') AS citations`;

export type EmbeddedStoreOptions = {
  /** Directory holding engram.db; created when missing. ":memory:" keeps everything in RAM. */
  dataDir: string;
  dim: number;
  /** Where warm-up progress and snapshot verdicts go; silent when absent. */
  log?: Logger;
  /**
   * Awaited between the background slices of `warm()`. Tests hold it to
   * look at a store in the middle of catching up.
   */
  betweenSlices?: () => Promise<void>;
  /**
   * `PRAGMA quick_check` of the file. `true` (operator verbs): before the
   * store is handed out, refusing a damaged file. `"background"` (`engram
   * serve`): on a worker thread while the store serves, `readiness()`
   * naming "store" until it passes; a damaged file then answers data_loss
   * to every call. The check reads every page (1.6-2.3 s warm, 18 s cold on
   * a 100,000-record, 435 MB file). `"alongside"` (migrate and revert): on
   * a worker thread while the store is used, every sweep write waiting for
   * it to pass and `integrityChecked()` raising the refusal `true` would
   * have, so a sweep reads (its preflight) while the file is checked but
   * never writes over a damaged one. Without it, damage meets the reads
   * that touch it as data_loss.
   */
  integrityCheck?: boolean | "background" | "alongside";
  /** How often a store that cannot write retries on its own (tests shorten it). */
  writeProbeMs?: number;
  /**
   * Records from which a migration sweep shares its computing with a worker
   * thread (see SWEEP_WORKER_FROM); tests lower it to run that path on a
   * few records.
   */
  sweepWorkerFrom?: number;
};

/**
 * A sweep worker took 64-102 ms from start to a first answer compiled
 * (180-265 ms from the TypeScript sources), while the main thread computes
 * about 2,000 records in 30 ms: below a few thousand records it cannot pay
 * for itself. 20,000 leaves a margin; the threshold is a choice, not a
 * measured break-even.
 */
export const SWEEP_WORKER_FROM = 20_000;

/** Rows per chunk a preflight or a worker computes at a time: one pass's worth at the CLI's batch size. */
const SWEEP_CHUNK_ROWS = 2048;

/** The methods that write: a storage fault in one of them is `store_cannot_write` and starts an episode. */
const WRITE_METHODS: ReadonlySet<PropertyKey> = new Set([
  "create",
  "replace",
  "supersede",
  "delete",
  "deleteOwnedInScope",
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

type OriginVerdict = { ok: true; seq: number } | { ok: false; reason: string };

const SILENT: Logger = { info() {}, warn() {}, error() {} };

/**
 * The default store: one SQLite file. Filters run over an in-memory mirror
 * of the indexed columns (one predicate for list, count, search and tags),
 * vectors live in an in-process index, and words in an FTS5 table kept by
 * triggers. A change log written by triggers lets every process that has the
 * file open (server, CLI operator verbs, migrations) catch up cheaply.
 */
export class EmbeddedStore implements Store, MigrationStore {
  readonly kind = "embedded" as const;
  private readonly db: Database.Database;
  private readonly attrs = new Map<number, RecordAttrs>();
  private readonly ridById = new Map<string, number>();
  private readonly ridsByScope = new Map<string, Set<number>>();
  /** Per scope: records per owner and shared records per owner, so scope counts cost O(scopes). */
  private readonly scopeStats = new Map<string, ScopeStats>();
  /** Records in some gated state (archived, superseded, windowed): what a lifted read can add. */
  private readonly gatedRids = new Set<number>();
  /** Built on first use: operator verbs that never search never pay for it. */
  private index: VectorIndex | undefined;
  /**
   * Records whose entry in the index may be missing or stale: changed since
   * the snapshot, or not yet loaded on a rebuild. A search scores them from
   * SQLite directly until the catch-up has applied them.
   */
  private readonly pending = new Set<number>();
  private indexDirty = false;
  /**
   * True while every record in the index sits in the group of its scope, so
   * a one-scope search may scan that group's block. A loaded snapshot has no
   * groups; they are assigned in the background (`groupQueue` holds the
   * records still to do), and until then one-scope searches walk the graph.
   */
  private groupsCurrent = false;
  private groupQueue: number[] | undefined;
  private lastSeq = 0;
  private dataVersion = -1;
  /** Set while warm() runs in the background; then reads use partial state instead of finishing it inline. */
  private warming: Promise<void> | undefined;
  private closed = false;
  private readonly log: Logger;

  private readonly health: WriteHealth;

  /** Use `open`: it hands out the store with its faults mapped. */
  constructor(private readonly opts: EmbeddedStoreOptions) {
    const memory = opts.dataDir === ":memory:";
    const file = memory ? ":memory:" : join(opts.dataDir, "engram.db");
    this.log = opts.log ?? SILENT;
    if (!memory) {
      prepareDataDir(opts.dataDir, file);
      refuseEmptyWithRecords(file, join(opts.dataDir, "vectors"));
    }
    let db: Database.Database | undefined;
    try {
      db = new Database(file);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("busy_timeout = 5000");
      // Statement journals (one per UPDATE inside a sweep's transaction) and
      // the sweep's pin tables stay in memory instead of a temporary file.
      db.pragma("temp_store = MEMORY");
      registerTermFunction(db);
      upgradeLayout(db, this.log);
      dropWordIndex(db, this.log);
      db.exec(SCHEMA_SQL);
      upgradeUpdateTriggers(db, this.log);
      markTermIndexIfEmpty(db);
      if (!memory && opts.integrityCheck === true) {
        // Mapped for the check only: it reads every page, and copying each
        // one out of the OS cache through read() cost more than the check.
        db.pragma(`mmap_size = ${CHECK_MMAP_BYTES}`);
        let problems: number;
        try {
          problems = (db.pragma("quick_check(10)") as { quick_check: string }[]).filter((r) => r.quick_check !== "ok").length;
        } finally {
          db.pragma("mmap_size = 0");
        }
        if (problems > 0) throw damagedRefusal(file, problems);
      }
      if (!memory && db.prepare("SELECT 1 FROM records LIMIT 1").get() !== undefined) this.markedHasRecords = markHasRecords(file);
    } catch (err) {
      db?.close();
      if (memory || (err instanceof Error && err.name === "StoreOpenError")) throw err;
      throw openRefusal(file, err);
    }
    this.db = db;
    this.termsComplete = termIndexComplete(db);
    this.health = new WriteHealth(this.log, () => this.probeWrite(), opts.writeProbeMs, memory ? "the store" : "engram.db");
    if (!memory && opts.integrityCheck === "background") this.checkInBackground(file);
    if (!memory && opts.integrityCheck === "alongside") this.checkAlongside(file);
  }

  /** An "alongside" integrity check: settles with the refusal an open-time check would have thrown, or with nothing. */
  private alongside: Promise<void> | undefined;
  /** True until the alongside check has settled. */
  private alongsidePending = false;

  private checkAlongside(file: string): void {
    const check = quickCheckInWorker(file, CHECK_MMAP_BYTES);
    this.checking = check;
    this.alongsidePending = true;
    this.alongside = check.done.then(
      (problems) => {
        if (problems > 0) throw damagedRefusal(file, problems);
      },
      (err: unknown) => {
        throw openRefusal(file, err);
      },
    );
    void this.alongside.then(
      () => undefined,
      () => undefined,
    ).finally(() => {
      this.alongsidePending = false;
      this.checking = undefined;
    });
  }

  /**
   * Resolves once the file is known sound; rejects with the StoreOpenError an
   * open-time check would have thrown. At once without an "alongside" check.
   */
  integrityChecked(): Promise<void> {
    return this.alongside ?? Promise.resolve();
  }

  /** Set while the background integrity check runs. */
  private checking: { stop(): void } | undefined;

  private checkInBackground(file: string): void {
    const check = quickCheckInWorker(file);
    this.checking = check;
    check.done.then(
      (problems) => {
        this.checking = undefined;
        if (problems > 0) this.health.damaged("SQLITE_CORRUPT", checkFailed(damagedRefusal(file, problems)));
        else this.log.info("store integrity check passed");
      },
      (err: unknown) => {
        this.checking = undefined;
        if (this.closed) return;
        const refusal = openRefusal(file, err);
        if (storeFaultOf(err, "read")?.outcome === "data_loss") this.health.damaged(faultCause(err)!, checkFailed(refusal));
        else this.log.warn("store integrity check could not run", { cause: faultCause(err) ?? "unknown" });
      },
    );
  }

  /**
   * Opens the store. What it returns maps every storage fault (a full disk,
   * a read-only file system, a damaged page) to `unavailable` or
   * `data_loss` through the one mapping in store-fault.ts.
   */
  static open(opts: EmbeddedStoreOptions): EmbeddedStore {
    const store = new EmbeddedStore(opts);
    return guardStoreFaults(store, WRITE_METHODS, store.health);
  }

  /** A small committed write, to learn whether the store can write again. */
  private probeWrite(): void {
    this.db
      .prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .run(META_WRITE_PROBE, new Date().toISOString());
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.closed = true;
    this.health.stop();
    this.checking?.stop();
    // Both workers close their connections first, so this one is the last: it folds the WAL in and removes it.
    const ahead = this.revertAhead;
    this.dropAhead();
    await ahead?.sweep.stopped();
    await this.checkpointHere();
    try {
      // Counted reads are written before the file closes: a clean shutdown loses none.
      this.accessCounts.flush();
    } catch (err) {
      // A store that cannot write (disk full) loses the counts, never the close.
      this.log.warn("access counts not written at close", { error: errorName(err) });
    }
    if (this.index && this.mirrorLoaded) {
      this.sync();
      // A snapshot is an optimisation: one that cannot be written (disk
      // full, read-only) costs the next start a catch-up, never the close.
      if (this.indexDirty && this.pending.size === 0) {
        try {
          this.saveSnapshot();
        } catch (err) {
          this.log.warn("vector snapshot not saved at close; the next start catches up from the change log", { error: errorName(err) });
        }
      }
    }
    this.db.close();
  }

  /**
   * Loads the mirror and the vector index in the background, in slices that
   * yield to the event loop, and resolves once both are ready. Reads stay
   * correct meanwhile: the mirror finishes inline when a read needs it, and
   * records the index has not caught up with are scored from SQLite.
   */
  warm(): Promise<void> {
    this.warming ??= this.warmInSlices()
      .then(() => this.buildTerms())
      .finally(() => {
      this.warming = undefined;
    });
    return this.warming;
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
    if (!this.mirrorLoaded || this.checking || this.health.blocked()) waiting.push("store");
    if (!this.health.canWrite) waiting.push("store_writes");
    if (!this.index || this.pending.size > 0 || this.index.graphPending) waiting.push("index");
    if (!this.termsComplete) waiting.push("terms");
    return waiting;
  }

  /** Read once at open, then set when the background build finishes. */
  private termsComplete: boolean | undefined;

  private async buildTerms(): Promise<void> {
    if (this.closed || this.termsComplete) return;
    await buildTermIndex(this.db, this.log, () => this.yieldSlice());
    this.termsComplete = termIndexComplete(this.db);
  }

  private async warmInSlices(): Promise<void> {
    await this.loadMirrorInSlices();
    if (this.closed) return;
    this.sync();
    if (!this.index) this.openIndex();
    const index = this.index!;

    const total = this.pending.size;
    let done = 0;
    let lastReport = Date.now();
    while (this.pending.size > 0) {
      if (!(await this.yieldSlice())) return;
      done += this.applyPending(CATCH_UP_SLICE);
      if (Date.now() - lastReport >= PROGRESS_EVERY_MS && this.pending.size > 0) {
        lastReport = Date.now();
        this.log.info(`vector index catching up: ${Math.min(done, total)}/${total} records`, { done: Math.min(done, total), total });
      }
    }
    if (total > 0) this.log.info(`vector index caught up: ${total}/${total} records`, { done: total, total });
    while (!this.assignGroups(GROUP_SLICE)) if (!(await this.yieldSlice())) return;

    if (index.graphPending) {
      const size = index.size;
      let built = 0;
      this.log.info(`vector index building its graph: 0/${size} records`, { done: 0, total: size });
      for (;;) {
        if (!(await this.yieldSlice())) return;
        if (index.buildGraphStep(GRAPH_SLICE)) break;
        built += GRAPH_SLICE;
        if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
          lastReport = Date.now();
          this.log.info(`vector index building its graph: ${Math.min(built, size)}/${size} records`, { done: Math.min(built, size), total: size });
        }
      }
    }
    this.saveIfWorthIt(total);
    this.log.info("vector index ready", { records: index.size });
  }

  /** False once the store is closed: the background work must stop touching it. */
  private async yieldSlice(): Promise<boolean> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.opts.betweenSlices) await this.opts.betweenSlices();
    return !this.closed;
  }

  private snapshotDir(): string | undefined {
    return this.opts.dataDir === ":memory:" ? undefined : join(this.opts.dataDir, "vectors");
  }

  /**
   * The vector index for a read. Outside a background warm-up it is brought
   * fully up to date first (the operator verbs and tests that never warm);
   * during one, the caller also scores `pending` itself.
   */
  private vectors(): VectorIndex {
    if (!this.index) this.openIndex();
    if (!this.warming) this.finishIndexInline();
    return this.index!;
  }

  private finishIndexInline(): void {
    const index = this.index!;
    const caughtUp = this.pending.size;
    while (this.pending.size > 0) this.applyPending(Number.MAX_SAFE_INTEGER);
    this.assignGroups(Number.MAX_SAFE_INTEGER);
    const built = index.graphPending;
    if (built) index.buildGraphStep(Number.MAX_SAFE_INTEGER);
    if (caughtUp > 0 || built) this.saveIfWorthIt(caughtUp);
  }

  private saveIfWorthIt(changes: number): void {
    if (!this.index || !this.indexDirty || this.pending.size > 0) return;
    if (this.index.size < SNAPSHOT_AT && changes < SNAPSHOT_AT) return;
    try {
      this.saveSnapshot();
    } catch (err) {
      this.log.warn("vector snapshot not saved; the next start catches up from the change log", { error: errorName(err) });
    }
  }

  /**
   * Takes the saved snapshot when it provably reflects this database at a
   * change-log position the log still holds, and marks every vector change
   * logged after that position as pending. Anything else (no snapshot,
   * another database, a position the log does not hold, a snapshot newer
   * than the database) starts an empty index with every record pending.
   * Needs the mirror loaded (lastSeq, the record ids).
   */
  private openIndex(): void {
    const dir = this.snapshotDir();
    const loaded = dir ? VectorIndex.load(dir, this.opts.dim, {}, { graphBuild: "stepwise" }) : undefined;
    const verdict: OriginVerdict = loaded ? this.checkOrigin(loaded.origin) : { ok: false, reason: dir ? "no usable snapshot" : "in memory" };
    this.pending.clear();
    this.groupQueue = undefined;
    if (loaded && verdict.ok) {
      const rows = this.db
        .prepare("SELECT DISTINCT rid FROM change_log WHERE seq > ? AND seq <= ? AND vec != 0")
        .all(verdict.seq, this.lastSeq) as { rid: number }[];
      for (const { rid } of rows) this.pending.add(rid);
      this.index = loaded;
      this.indexDirty = false;
      this.groupsCurrent = false;
      if (this.pending.size > 0) {
        this.log.info("vector snapshot is behind the database: catching up from the change log", {
          snapshot_seq: verdict.seq,
          database_seq: this.lastSeq,
          records: this.pending.size,
        });
      }
      return;
    }
    if (loaded && !verdict.ok) {
      this.log.warn("vector snapshot does not match the database: rebuilding the index from the records", { reason: verdict.reason, records: this.attrs.size });
    } else if (dir && this.attrs.size > 0) {
      this.log.info("no usable vector snapshot: building the index from the records", { records: this.attrs.size });
    }
    this.index = new VectorIndex(this.opts.dim, {}, { graphBuild: "stepwise" });
    this.indexDirty = true;
    // Every record arrives through applyBatch, which groups it.
    this.groupsCurrent = true;
    for (const rid of this.attrs.keys()) this.pending.add(rid);
  }

  private checkOrigin(origin: SnapshotOrigin): OriginVerdict {
    const id = this.databaseId(false);
    if (id === undefined || origin.database !== id) return { ok: false, reason: "snapshot of another database" };
    const seq = origin.seq;
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) return { ok: false, reason: "snapshot without a change-log position" };
    const head = (this.db.prepare(CHANGE_LOG_HEAD_SQL).get() as { s: number }).s;
    if (seq > head) return { ok: false, reason: "snapshot newer than the database" };
    if (seq > 0) {
      const row = this.db.prepare("SELECT rid FROM change_log WHERE seq = ?").get(seq) as { rid: number } | undefined;
      if (!row || row.rid !== origin.seqRid) return { ok: false, reason: "change log does not hold the snapshot's position" };
    }
    return { ok: true, seq };
  }

  /** Groups up to `max` more records of a loaded index by their scope; true once all are. */
  private assignGroups(max: number): boolean {
    if (this.groupsCurrent) return true;
    const index = this.index!;
    const queue = (this.groupQueue ??= [...index.keys()]);
    for (let n = 0; n < max && queue.length > 0; n++) {
      const rid = queue.pop()!;
      index.setGroup(rid, this.attrs.get(rid)?.scope);
    }
    if (queue.length > 0) return false;
    this.groupQueue = undefined;
    this.groupsCurrent = true;
    return true;
  }

  /** Applies up to `max` pending records to the index from SQLite; returns how many. */
  private applyPending(max: number): number {
    const index = this.index!;
    let n = 0;
    const batch: number[] = [];
    for (const rid of this.pending) {
      if (n++ >= max) break;
      batch.push(rid);
      if (batch.length === IN_LIST_MAX) this.applyBatch(index, batch.splice(0));
    }
    if (batch.length > 0) this.applyBatch(index, batch);
    return Math.min(n, max);
  }

  private applyBatch(index: VectorIndex, rids: number[]): void {
    const found = new Map(this.vectorsOf(rids).map((r) => [r.rid, r.vector]));
    for (const rid of rids) {
      const blob = found.get(rid);
      if (blob) {
        index.upsert(rid, toFloat32(blob));
        index.setGroup(rid, this.attrs.get(rid)?.scope);
      } else index.remove(rid);
      this.pending.delete(rid);
    }
    this.indexDirty = true;
  }

  /** The identity a snapshot names to say which database it was taken from; created on the first save. */
  private databaseId(create: boolean): string | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(META_DATABASE_ID) as { value: string } | undefined;
    if (row || !create) return row?.value;
    const id = randomUUID();
    this.db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)").run(META_DATABASE_ID, id);
    return this.databaseId(false);
  }

  private saveSnapshot(): void {
    const dir = this.snapshotDir();
    if (!dir || !this.index || this.pending.size > 0) return;
    const seqRid = this.lastSeq === 0 ? -1 : ((this.db.prepare("SELECT rid FROM change_log WHERE seq = ?").get(this.lastSeq) as { rid: number } | undefined)?.rid ?? -1);
    this.index.save(dir, { database: this.databaseId(true)!, seq: this.lastSeq, seqRid });
    this.indexDirty = false;
  }

  get database(): Database.Database {
    return this.db;
  }

  // ---- mirror maintenance -------------------------------------------------

  /**
   * Starts a mirror load at the current change-log position. Rows are then
   * read in rid order; a row written meanwhile is read as it now is, or
   * re-read by the change-log pass that follows the load, so the result is
   * the same as one load at the end.
   */
  private beginMirrorLoad(): void {
    this.attrs.clear();
    this.payloads.clear();
    this.ridById.clear();
    this.ridsByScope.clear();
    this.scopeStats.clear();
    this.gatedRids.clear();
    this.lastSeq = (this.db.prepare(CHANGE_LOG_HEAD_SQL).get() as { s: number }).s;
    this.dataVersion = this.readDataVersion();
    this.mirrorCursor = 0;
  }

  /** Reads up to `limit` more rows into the mirror; false once every row is in. */
  private loadMirrorRows(limit: number): boolean {
    const rows = this.stmt(`SELECT ${ATTR_COLUMNS} FROM records WHERE rid > ? ORDER BY rid LIMIT ?`).all(this.mirrorCursor, limit) as Row[];
    for (const row of rows) {
      this.dropAttrs(row.rid);
      this.applyRow(row);
    }
    if (rows.length > 0) this.mirrorCursor = rows[rows.length - 1]!.rid;
    return rows.length === limit;
  }

  private async loadMirrorInSlices(): Promise<void> {
    if (this.mirrorLoaded) return;
    if (this.mirrorCursor === undefined) this.beginMirrorLoad();
    while (!this.mirrorLoaded) {
      if (!this.loadMirrorRows(MIRROR_SLICE)) {
        this.sync(); // finishes the load and replays what was written during it
        return;
      }
      if (!(await this.yieldSlice())) return;
    }
  }

  /** False until the first filtered read: operator verbs that only sweep SQL never load the mirror. */
  private mirrorLoaded = false;
  /** The last rid read while a mirror load is under way; undefined otherwise. */
  private mirrorCursor: number | undefined;

  private dataVersionStmt: Database.Statement | undefined;

  /** Every read asks this, so the statement is prepared once: db.pragma() prepares it anew on each call. */
  private readDataVersion(): number {
    this.dataVersionStmt ??= this.db.prepare("PRAGMA data_version").pluck();
    return this.dataVersionStmt.get() as number;
  }

  /** Catches up with writes from this and other connections. */
  private sync(force = false): void {
    if (!this.mirrorLoaded) {
      if (this.mirrorCursor === undefined) this.beginMirrorLoad();
      while (this.loadMirrorRows(50_000));
      this.mirrorCursor = undefined;
      this.mirrorLoaded = true;
      // Writes of this connection made during a sliced load leave
      // data_version alone; replay the change log unconditionally.
      force = true;
    }
    const dv = this.readDataVersion();
    if (!force && dv === this.dataVersion) return;
    // Another connection committed: a sweep's quiet writes rewrite payloads
    // without a change-log row, so no cached text can be trusted past it.
    if (dv !== this.dataVersion) this.payloads.clear();
    this.dataVersion = dv;
    const changes = this.stmt("SELECT seq, rid, vec FROM change_log WHERE seq > ? ORDER BY seq").all(this.lastSeq) as {
      seq: number;
      rid: number;
      vec: number;
    }[];
    if (changes.length === 0) return;
    const vecChanged = new Map<number, boolean>();
    for (const c of changes) vecChanged.set(c.rid, (vecChanged.get(c.rid) ?? false) || c.vec !== 0);
    this.lastSeq = changes[changes.length - 1]!.seq;
    const withVector = this.stmt(`SELECT ${ATTR_COLUMNS}, (SELECT vector FROM vectors v WHERE v.rid = records.rid) AS vector FROM records WHERE rid = ?`);
    const attrsOnly = this.stmt(`SELECT ${ATTR_COLUMNS} FROM records WHERE rid = ?`);
    for (const [rid, vec] of vecChanged) {
      const row = (vec ? withVector : attrsOnly).get(rid) as (Row & { vector?: Buffer | null }) | undefined;
      // A cached payload is re-read rather than dropped: the access-count
      // flush rewrites exactly the records being read, and would otherwise
      // turn each one's next read into a miss.
      const cached = this.payloads.has(rid);
      this.dropAttrs(rid);
      if (this.index && vec) {
        if (row?.vector) this.index.upsert(rid, toFloat32(row.vector));
        else if (this.index.has(rid)) this.index.remove(rid);
        this.pending.delete(rid);
        this.indexDirty = true;
      }
      if (row) this.applyRow(row);
      if (row && cached) {
        const got = this.stmt("SELECT payload FROM records WHERE rid = ?").get(rid) as { payload: string } | undefined;
        if (got) this.payloads.set(rid, got.payload);
      }
    }
  }

  private applyRow(row: Row): void {
    const a: RecordAttrs = {
      rid: row.rid,
      id: row.id,
      owner: row.owner,
      scope: row.scope,
      visibility: row.visibility,
      category: row.category,
      kind: row.kind,
      createdAt: row.created_at,
      notBefore: row.not_before,
      notAfter: row.not_after,
      superseded: !!row.superseded_by,
      archived: !!row.archived_at,
      tags: row.tags ? (JSON.parse(row.tags) as string[]) : [],
      citationKeys: row.citations
        ? (JSON.parse(row.citations) as { kind: string; ref: string }[]).map((c) => citationKey(c.kind, c.ref))
        : [],
    };
    this.attrs.set(a.rid, a);
    this.ridById.set(a.id, a.rid);
    let set = this.ridsByScope.get(a.scope);
    if (!set) this.ridsByScope.set(a.scope, (set = new Set()));
    set.add(a.rid);
    this.countScope(a, 1);
    if (isGated(a)) this.gatedRids.add(a.rid);
    // A scope change logs no vector change; the index's group follows it here.
    this.index?.setGroup(a.rid, a.scope);
  }

  private dropAttrs(rid: number): void {
    this.payloads.delete(rid);
    const a = this.attrs.get(rid);
    if (!a) return;
    this.attrs.delete(rid);
    this.ridById.delete(a.id);
    const set = this.ridsByScope.get(a.scope);
    set?.delete(rid);
    if (set && set.size === 0) this.ridsByScope.delete(a.scope);
    this.countScope(a, -1);
    this.gatedRids.delete(rid);
  }

  private countScope(a: RecordAttrs, delta: number): void {
    if (a.owner === null) return;
    let st = this.scopeStats.get(a.scope);
    if (!st) this.scopeStats.set(a.scope, (st = { byOwner: new Map(), sharedByOwner: new Map(), shared: 0 }));
    st.byOwner.set(a.owner, (st.byOwner.get(a.owner) ?? 0) + delta);
    if (a.visibility === "shared") {
      st.shared += delta;
      st.sharedByOwner.set(a.owner, (st.sharedByOwner.get(a.owner) ?? 0) + delta);
    }
    if (st.byOwner.get(a.owner) === 0) st.byOwner.delete(a.owner);
    if (st.sharedByOwner.get(a.owner) === 0) st.sharedByOwner.delete(a.owner);
    if (st.byOwner.size === 0) this.scopeStats.delete(a.scope);
  }

  private afterWrite(): void {
    if (this.mirrorLoaded) this.sync(true);
    if (!this.markedHasRecords) this.markHasRecords();
  }

  /** Set once engram.db.has-records exists beside the file (or the store is in memory). */
  private markedHasRecords = false;

  /** Leaves the evidence an empty file at a later start is checked against: once, at the first write that leaves records. */
  private markHasRecords(): void {
    if (this.opts.dataDir === ":memory:") {
      this.markedHasRecords = true;
      return;
    }
    if (this.stmt("SELECT 1 FROM records LIMIT 1").get() === undefined) return;
    this.markedHasRecords = markHasRecords(join(this.opts.dataDir, "engram.db"));
  }

  // ---- point reads ----------------------------------------------------------

  private payloadOf(rid: number): MemoryRecord | undefined {
    const row = this.stmt("SELECT payload FROM records WHERE rid = ?").get(rid) as { payload: string } | undefined;
    return row ? decodeRecord(row.payload) : undefined;
  }

  async getRaw(id: string): Promise<MemoryRecord | undefined> {
    const row = this.stmt("SELECT payload FROM records WHERE id = ?").get(id) as { payload: string } | undefined;
    return row ? decodeRecord(row.payload) : undefined;
  }

  async resolve(input: string): Promise<ResolveResult> {
    if (isUuid(input)) return { kind: "id", id: input.toLowerCase() };
    const rows = this.stmt("SELECT id FROM records WHERE short_id = ? LIMIT 2").all(input.toUpperCase()) as { id: string }[];
    if (rows.length === 0) return { kind: "not_found" };
    if (rows.length > 1) return { kind: "ambiguous" };
    return { kind: "id", id: rows[0]!.id };
  }

  async getReadable(id: string, subject: Subject): Promise<MemoryRecord | undefined> {
    return this.pointRead(id, (a) => readable(a, { subject }));
  }

  async getOwned(id: string, subject: Subject): Promise<MemoryRecord | undefined> {
    return this.pointRead(id, (a) => readable(a, { subject, ownerOnly: true }));
  }

  /** Point reads' payload texts; a rid is dropped wherever its attributes are. */
  private readonly payloads = new PayloadCache();

  /**
   * One record by id, if the mirror admits it. With the mirror loaded, an
   * unchanged data_version proves the mirror (and so the payload cache) was
   * current: a cached payload then costs only that version check, and an
   * uncached one is read together with the version by one statement (one
   * read transaction, one snapshot). Anything else catches up first, as
   * every read does. The record is frozen, whichever way it was read (the
   * cache hands every reader the same one): callers copy before changing.
   */
  private pointRead(id: string, admits: (a: RecordAttrs) => boolean): MemoryRecord | undefined {
    if (this.mirrorLoaded) {
      const rid = this.ridById.get(id);
      const a = rid === undefined ? undefined : this.attrs.get(rid);
      if (a && admits(a)) {
        const cached = this.payloads.record(a.rid);
        if (cached !== undefined) {
          if (this.readDataVersion() === this.dataVersion) return cached;
        } else {
          const row = this.stmt("SELECT payload, (SELECT data_version FROM pragma_data_version) AS dv FROM records WHERE rid = ?").get(a.rid) as
            | { payload: string; dv: number }
            | undefined;
          if (row && row.dv === this.dataVersion) {
            this.payloads.set(a.rid, row.payload);
            return this.payloads.record(a.rid) ?? deepFreeze(decodeRecord(row.payload));
          }
        }
      } else if (this.readDataVersion() === this.dataVersion) {
        return undefined;
      }
    }
    this.sync();
    const rid = this.ridById.get(id);
    const a = rid === undefined ? undefined : this.attrs.get(rid);
    if (!a || !admits(a)) return undefined;
    const rec = this.payloadOf(a.rid);
    return rec && deepFreeze(rec);
  }

  async countShortId(shortId: string): Promise<number> {
    return (this.stmt("SELECT count(*) AS n FROM records WHERE short_id = ?").get(shortId.toUpperCase()) as { n: number }).n;
  }

  async vectorOf(id: string): Promise<Float32Array | undefined> {
    const row = this.stmt("SELECT v.vector FROM records r JOIN vectors v ON v.rid = r.rid WHERE r.id = ?").get(id) as { vector: Buffer } | undefined;
    return row?.vector ? toFloat32(row.vector) : undefined;
  }

  // ---- writes ---------------------------------------------------------------

  async create(record: MemoryRecord, vector: Float32Array): Promise<boolean> {
    const created = this.writeRecord(record, vector, undefined, "insert");
    this.afterWrite();
    return created;
  }

  async replace(record: MemoryRecord, vector?: Float32Array): Promise<void> {
    // One statement: SQLite checks the revision and writes under its own lock,
    // so a second connection cannot write between the check and the write.
    const written = this.writeRecord(record, vector, undefined, { expect: record.revision ?? null });
    this.afterWrite();
    if (!written) throw new RevisionConflictError(record.id, this.stmt("SELECT 1 FROM records WHERE id = ?").get(record.id) === undefined);
  }

  /**
   * The one place a record row is written; the codec stamps the version and
   * a fresh revision (an import keeps the one it carries). "update" never
   * inserts, so a migration cannot resurrect a record deleted while it ran;
   * it reports whether a row was there. "insert" never overwrites: it
   * reports whether the id was free. `{ expect }` updates only while the
   * stored revision is that one (null: a record written before revisions).
   * An update that is told the row's indexed columns as they are now
   * (`{ stored }`) leaves an index alone when its column keeps its value:
   * naming a column in SET rewrites its index entry anyway, which for a
   * sweep or an access flush is an extra page write per record. The vector,
   * when given, goes to its own table, so a write without one never touches it.
   */
  writeRecord(
    record: MemoryRecord | PreEncoded,
    vector?: Float32Array,
    version?: number | null,
    mode: WriteMode = "upsert",
    revision: "fresh" | "carried" = "fresh",
  ): boolean {
    if (record instanceof PreEncoded && !record.full && !(typeof mode === "object" && "stored" in mode && mode.quiet === true)) {
      throw new Error("a partial encoding can only be written quietly");
    }
    const c = (
      record instanceof PreEncoded ? record.columns : version === undefined ? encodeRecord(record, undefined, revision) : encodeRecord(record, version, revision)
    ) as IndexedColumns;
    if (mode === "update" || (typeof mode === "object" && "stored" in mode)) {
      const stored = typeof mode === "object" ? mode.stored : undefined;
      const keepShort = stored !== undefined && stored.short_id === c.short_id;
      const keepVersion = stored !== undefined && stored.schema_version === c.schema_version;
      // A caller that read the row in this transaction names its rid: the
      // primary key finds it without a walk of the id index.
      const byRid = stored?.rid !== undefined;
      const quiet = typeof mode === "object" && mode.quiet === true;
      const variant = (keepShort ? 1 : 0) | (keepVersion ? 2 : 0) | (byRid ? 4 : 0) | (quiet ? 8 : 0);
      let update = this.updates[variant];
      if (!update) {
        const cols = UPDATE_COLUMNS.filter(
          (k) =>
            !(keepShort && k === "short_id") && !(keepVersion && k === "schema_version") && !(quiet && (MIRRORED_COLUMNS as readonly string[]).includes(k)),
        );
        update = this.updates[variant] = {
          cols,
          st: this.db.prepare(`UPDATE records SET ${cols.map((k) => `${k} = ?`).join(", ")} WHERE ${byRid ? "rid = ? AND " : ""}id = ?`),
        };
      }
      const args: unknown[] = [];
      for (const k of update.cols) args.push(c[k]);
      if (byRid) args.push(stored!.rid);
      args.push(c.id);
      const found = update.st.run(args).changes > 0;
      // A quiet write leaves no change-log row for sync() to drop the text by.
      if (found && quiet) {
        const rid = stored?.rid ?? this.ridById.get(c.id);
        if (rid !== undefined) this.payloads.delete(rid);
      }
      if (found && vector) this.writeVector(c.id, vector);
      return found;
    }
    if (typeof mode === "object") {
      // Compare-and-swap in one statement: the revision check and the write
      // happen under SQLite's lock, so no other connection slips in between.
      const cas = this.stmt(
        `UPDATE records SET ${UPDATE_COLUMNS.map((k) => `${k} = ?`).join(", ")}
         WHERE id = ? AND json_extract(payload, '$.revision') IS ?`,
      );
      const landed = cas.run(...UPDATE_COLUMNS.map((k) => c[k]), c.id, mode.expect).changes > 0;
      if (landed && vector) this.writeVector(c.id, vector);
      return landed;
    }
    const onConflict = mode === "insert" ? "DO NOTHING" : `DO UPDATE SET ${UPDATE_COLUMNS.map((k) => `${k} = excluded.${k}`).join(", ")}`;
    const write = this.stmt(
      `INSERT INTO records (id, ${UPDATE_COLUMNS.join(", ")}) VALUES (?, ${UPDATE_COLUMNS.map(() => "?").join(", ")})
       ON CONFLICT(id) ${onConflict}`,
    );
    const written = write.run(c.id, ...UPDATE_COLUMNS.map((k) => c[k])).changes > 0;
    if (written && vector) this.writeVector(c.id, vector);
    return written;
  }

  /** writeRecord's UPDATE statements, by which indexed columns they leave alone and how they find the row. */
  private readonly updates: ({ cols: readonly (typeof UPDATE_COLUMNS)[number][]; st: Database.Statement } | undefined)[] = [];

  /** Part of writeRecord: the vector of the record row just written. */
  private writeVector(id: string, vector: Float32Array): void {
    this.stmt(
      `INSERT INTO vectors (rid, vector) SELECT rid, ? FROM records WHERE id = ?
       ON CONFLICT(rid) DO UPDATE SET vector = excluded.vector`,
    ).run(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), id);
  }

  private readonly statements = new Map<string, Database.Statement>();

  /** Prepared once per connection: preparing is most of the cost of a small statement. */
  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /** Runs fn in one SQLite transaction and refreshes the mirror afterwards. */
  transaction<T>(fn: () => T): T {
    try {
      // IMMEDIATE takes the write lock up front, so a writer racing another
      // connection waits out busy_timeout instead of failing with SQLITE_BUSY.
      return this.db.transaction(fn).immediate();
    } finally {
      this.afterWrite();
    }
  }

  async importBatch(rows: readonly ImportRow[]): Promise<void> {
    // One IMMEDIATE transaction: a batch that fails part-way leaves nothing behind.
    this.transaction(() => {
      for (const r of rows) this.writeRecord(r.record, r.vector, r.version, "upsert", "carried");
    });
  }

  async supersede(record: MemoryRecord, vector: Float32Array, targetIds: readonly string[], subject: Subject): Promise<void> {
    const run = this.db.transaction(() => {
      const targets = targetIds.map((id) => {
        const row = this.db.prepare("SELECT owner, payload FROM records WHERE id = ?").get(id) as
          | { owner: string | null; payload: string }
          | undefined;
        const ownedBy = subject.anonymous ? "" : subject.owner;
        if (!row || row.owner === null || row.owner !== ownedBy) throw new TargetsGoneError("target gone");
        return decodeRecord(row.payload);
      });
      const taken = targets.filter((t) => t.superseded_by).map((t) => t.id);
      if (taken.length > 0) throw new TargetsSupersededError(taken);
      // Insert-only: a keyed supersede never overwrites the record its key already made.
      if (!this.writeRecord(record, vector, undefined, "insert")) throw new RecordExistsError(record.id);
      for (const t of targets) this.writeRecord({ ...t, superseded_by: record.id });
    });
    try {
      // IMMEDIATE takes the write lock before the re-check, so a second
      // process cannot slip a supersede of the same head in between.
      run.immediate();
    } finally {
      this.afterWrite();
    }
  }

  async delete(id: string): Promise<boolean> {
    const info = this.db.prepare("DELETE FROM records WHERE id = ?").run(id);
    this.afterWrite();
    return info.changes > 0;
  }

  async deleteOwnedInScope(scope: string, subject: Subject): Promise<number> {
    this.sync();
    const ids = [...(this.ridsByScope.get(scope) ?? [])]
      .map((rid) => this.attrs.get(rid)!)
      .filter((a) => readable(a, { subject, ownerOnly: true }))
      .map((a) => a.id);
    const del = this.db.prepare("DELETE FROM records WHERE id = ?");
    this.db.transaction(() => ids.forEach((id) => del.run(id))).immediate();
    this.afterWrite();
    return ids.length;
  }

  // ---- filtered reads -------------------------------------------------------

  /** Candidate attrs for a query, narrowed by the scope index when one scope is named. */
  private candidates(q: RecordQuery): RecordAttrs[] {
    this.sync();
    const pool: Iterable<number> = q.onlyGated
      ? this.gatedRids
      : q.scope !== undefined
        ? (this.ridsByScope.get(q.scope) ?? [])
        : this.attrs.keys();
    const out: RecordAttrs[] = [];
    for (const rid of pool) {
      const a = this.attrs.get(rid)!;
      if (matches(a, q)) out.push(a);
    }
    return out;
  }

  async count(query: RecordQuery): Promise<number> {
    return this.candidates(query).length;
  }

  async list(query: RecordQuery, page: ListPage): Promise<{ records: MemoryRecord[]; total: number }> {
    const all = this.candidates(query);
    const dir = page.order === "desc" ? -1 : 1;
    all.sort((x, y) => (x.createdAt < y.createdAt ? -dir : x.createdAt > y.createdAt ? dir : x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    let rows = all;
    if (page.cursor) {
      const { c, seen } = page.cursor;
      const seenSet = new Set(seen);
      rows = rows.filter((a) => (dir < 0 ? a.createdAt < c : a.createdAt > c) || (a.createdAt === c && !seenSet.has(a.id)));
    }
    const start = page.offset ?? 0;
    const slice = rows.slice(start, start + page.limit);
    return { records: slice.map((a) => this.payloadOf(a.rid)!).filter(Boolean), total: all.length };
  }

  async search(query: RecordQuery, vector: Float32Array, text: string, candidates: number): Promise<ScoredRecord[]> {
    this.sync();
    // A process that never warms up (engram mcp) still gets the term index built, in the background.
    if (this.termsComplete === false && !this.warming) void this.warm();
    const scored = new Map<number, number>();
    if (query.onlyGated && this.gatedRids.size === 0) return [];
    const pool = query.onlyGated ? this.gatedRids : query.scope !== undefined ? (this.ridsByScope.get(query.scope) ?? new Set<number>()) : undefined;
    const index = this.vectors();
    const pending = this.pending;
    const admits = (rid: number): boolean => {
      const a = this.attrs.get(rid);
      return !!a && (pool === undefined || pool.has(rid)) && matches(a, query);
    };
    // A known pool (one scope, the gated records) goes over as the candidate
    // list, so the index never asks the filter about records outside it;
    // the filter itself is then consulted only for the rows the index looks at.
    const group = this.groupsCurrent && !query.onlyGated ? query.scope : undefined;
    const filter: VectorFilter =
      pool !== undefined
        ? { candidates: pool, group, allow: pending.size === 0 ? (rid) => matches(this.attrs.get(rid)!, query) : (rid) => !pending.has(rid) && admits(rid) }
        : { allow: pending.size === 0 ? admits : (rid: number) => !pending.has(rid) && admits(rid) };
    let hits = index.search(vector, candidates, filter);
    // Mid catch-up: what the index may hold stale is scored from SQLite.
    if (pending.size > 0) hits = mergeHits(hits, this.scorePending([...pending].filter(admits), vector), candidates);
    for (const hit of hits) scored.set(hit.key, hit.score);

    const lexical = this.termCandidates(text, candidates, pool, (rid) => {
      const a = this.attrs.get(rid);
      return !!a && matches(a, query);
    });
    if (lexical.length > 0) {
      const missing = lexical.filter((rid) => !scored.has(rid));
      // Scored from the index like every vector hit; only what it may hold stale is read from SQLite.
      const stale = missing.filter((rid) => pending.has(rid));
      for (const hit of index.scoreKeys(vector, stale.length === 0 ? missing : missing.filter((rid) => !pending.has(rid)))) scored.set(hit.key, hit.score);
      for (const hit of this.scorePending(stale, vector)) scored.set(hit.key, hit.score);
    }
    const rids = [...scored.keys()];
    const rows = rids.length === 0 ? [] : (this.stmt(`SELECT rid, payload FROM records WHERE rid IN (${rids.map(() => "?").join(",")})`).all(...rids) as { rid: number; payload: string }[]);
    return rows
      .map((r) => ({ record: decodeRecord(r.payload), score: clampCosine(scored.get(r.rid)!) }))
      .sort((x, y) => y.score - x.score || (x.record.id < y.record.id ? -1 : 1));
  }

  async termWeights(terms: readonly string[]): Promise<Map<string, number>> {
    this.sync();
    const total = Math.max(1, this.attrs.size);
    const weights = new Map<string, number>();
    for (const [t, n] of this.documentFrequencies(terms)) if (n > 0) weights.set(t, termWeight(total, n));
    return weights;
  }

  /**
   * Records holding any of the query's selective terms, best first: by the
   * summed weight (term-weight.ts) of the terms each holds, then by rid,
   * which is how Qdrant ranks a sparse vector of ones under its `idf`
   * modifier. Each term's posting list is read whole (short by
   * construction, the terms being rare). Returns at most `want` records,
   * all in `pool` (when given) and admitted by `admit`.
   */
  private termCandidates(text: string, want: number, pool: ReadonlySet<number> | undefined, admit: (rid: number) => boolean): number[] {
    const words = this.selectiveTerms(distinctTerms(text));
    if (words.length === 0) return [];
    const total = Math.max(1, this.attrs.size);
    const postings = this.stmt("SELECT rowid FROM records_terms WHERE records_terms MATCH ?").pluck();
    const weight = new Map<number, number>();
    for (const { t, n } of words) {
      const idf = termWeight(total, n);
      for (const rid of postings.all(`"${t}"`) as number[]) if (pool === undefined || pool.has(rid)) weight.set(rid, (weight.get(rid) ?? 0) + idf);
    }
    // Highest weight first, ties by rid: the filter is asked only about rows that could still make the cut.
    const top = new TopK(want);
    for (const [rid, w] of weight) if (top.wouldTake(rid, w) && admit(rid)) top.offer(rid, w);
    return top.drain().map((h) => h.key);
  }

  async tagCounts(query: RecordQuery): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const a of this.candidates(query)) for (const t of new Set(a.tags)) counts.set(t, (counts.get(t) ?? 0) + 1);
    return counts;
  }

  /**
   * Query words worth a lexical lookup: ranking every document that holds a
   * common word costs more than it tells (and the vector side finds those
   * anyway), so only words in at most 1% of documents (at least 1,000) are
   * kept, rarest first, at most eight. Document frequencies are cached; they
   * only steer a heuristic, so the cache is dropped every few thousand writes.
   */
  private selectiveTerms(tokens: string[]): { t: string; n: number }[] {
    if (tokens.length === 0) return [];
    const ceiling = Math.max(1000, Math.floor(this.attrs.size * 0.01));
    const df = this.documentFrequencies(tokens);
    return tokens
      .map((t) => ({ t, n: df.get(t) ?? 0 }))
      .filter((x) => x.n > 0 && x.n <= ceiling)
      .sort((x, y) => x.n - y.n)
      .slice(0, 8);
  }

  /**
   * How many records hold each term, read from the vocabulary in one query.
   * Cached: the counts steer candidate selection and weigh terms, where a
   * count a few thousand writes old ranks the same, so the cache is dropped
   * every few thousand writes. A term no record holds is never cached: the
   * next write may bring it, and a search for it must find that record.
   */
  private documentFrequencies(terms: readonly string[]): Map<string, number> {
    if (this.dfCache.size > 50_000 || this.lastSeq - this.dfCacheSeq > 5_000) {
      this.dfCache.clear();
      this.dfCacheSeq = this.lastSeq;
    }
    const out = new Map<string, number>();
    const missing: string[] = [];
    for (const t of new Set(terms)) {
      const n = this.dfCache.get(t);
      if (n === undefined) missing.push(t);
      else out.set(t, n);
    }
    for (let i = 0; i < missing.length; i += IN_LIST_MAX) {
      const part = missing.slice(i, i + IN_LIST_MAX);
      for (const t of part) out.set(t, 0);
      const rows = this.db.prepare(`SELECT term, doc FROM records_terms_vocab WHERE term IN (${part.map(() => "?").join(",")})`).all(...part) as { term: string; doc: number }[];
      for (const r of rows) {
        out.set(r.term, r.doc);
        this.dfCache.set(r.term, r.doc);
      }
    }
    return out;
  }

  private readonly dfCache = new Map<string, number>();
  private dfCacheSeq = 0;

  private vectorsOf(rids: readonly number[]): { rid: number; vector: Buffer }[] {
    const out: { rid: number; vector: Buffer }[] = [];
    for (let i = 0; i < rids.length; i += IN_LIST_MAX) {
      const part = rids.slice(i, i + IN_LIST_MAX);
      const rows = this.db
        .prepare(`SELECT rid, vector FROM vectors WHERE rid IN (${part.map(() => "?").join(",")})`)
        .all(...part) as { rid: number; vector: Buffer }[];
      out.push(...rows);
    }
    return out;
  }

  /** Exact cosine scores of records read straight from SQLite, for the ones the index has not caught up with. */
  private scorePending(rids: readonly number[], query: Float32Array): VectorHit[] {
    const qn = Math.sqrt(dot(query, query));
    const hits: VectorHit[] = [];
    for (const { rid, vector } of this.vectorsOf(rids)) {
      const v = toFloat32(vector);
      const norm = Math.sqrt(dot(v, v));
      if (norm > 0 && qn > 0) hits.push({ key: rid, score: dot(v, query) / (norm * qn) });
    }
    return hits;
  }

  async listScopes(subject: Subject): Promise<{ scopes: { scope: string; count: number }[]; approximate: boolean }> {
    this.sync();
    const scopes: { scope: string; count: number }[] = [];
    for (const [scope, st] of this.scopeStats) {
      // The same rule as readable(): own records, plus others' shared ones unless anonymous.
      const own = st.byOwner.get(subject.anonymous ? "" : subject.owner) ?? 0;
      const count = subject.anonymous ? own : own + st.shared - (st.sharedByOwner.get(subject.owner) ?? 0);
      if (count > 0) scopes.push({ scope, count });
    }
    scopes.sort((x, y) => (x.scope < y.scope ? -1 : 1));
    return { scopes, approximate: false };
  }

  async schemaHistogram(): Promise<SchemaHistogram> {
    const rows = this.db
      .prepare("SELECT schema_version AS v, count(*) AS n FROM records GROUP BY schema_version")
      .all() as { v: number | null; n: number }[];
    const versions = new Map<number, number>();
    let absent = 0;
    let total = 0;
    for (const r of rows) {
      total += r.n;
      if (r.v === null) absent += r.n;
      else versions.set(r.v, r.n);
    }
    return { versions, absent, total };
  }

  // ---- access counters -----------------------------------------------------

  private readonly accessCounts = new AccessCoalescer((entries) => this.addAccess(entries));

  noteAccess(id: string, at: string): void {
    // After close() nothing can be written; a read that raced the shutdown has nothing to count into.
    if (this.db.open) this.accessCounts.note(id, at);
  }

  /** In-process, so the counts are written when this returns; the promise is the port's. */
  async flushAccess(): Promise<void> {
    this.accessCounts.flush();
  }

  /**
   * Adds each entry's reads to its record, all in one transaction. Each row
   * is read, incremented and written under the write lock, so whatever
   * changed it since the reads were counted stays; a record deleted
   * meanwhile is skipped. Being read does not migrate a record: it keeps
   * its schema version.
   */
  addAccess(entries: readonly AccessEntry[]): void {
    const get = this.stmt("SELECT rid, short_id, schema_version, payload FROM records WHERE id = ?");
    this.transaction(() => {
      for (const e of entries) {
        const row = get.get(e.id) as { rid: number; short_id: string | null; schema_version: number | null; payload: string } | undefined;
        if (!row) continue;
        const rec = JSON.parse(row.payload) as MemoryRecord;
        rec.access_count = (rec.access_count ?? 0) + e.count;
        if (!rec.last_accessed_at || e.at > rec.last_accessed_at) rec.last_accessed_at = e.at;
        this.writeRecord(rec, undefined, row.schema_version, { stored: row });
      }
    });
  }

  // ---- migration engine ----------------------------------------------------

  /**
   * Records below a version, as two index ranges: an OR over NULL and `<`
   * would scan the whole table instead.
   */
  private static readonly BELOW_RIDS = `SELECT rid FROM records WHERE schema_version IS NULL
    UNION ALL SELECT rid FROM records WHERE schema_version < ?`;

  /**
   * The pin table holds the preview's records, by rid; the pending table
   * starts as a copy and loses each record once a pass has written it or
   * found it no longer eligible, so a pass reads the head of what is left
   * and counting the backlog costs nothing like a scan of the store.
   */
  async pinBelow(target: number): Promise<number> {
    this.tuneForSweep();
    this.staged = undefined;
    this.dropAhead();
    this.db.exec(`CREATE TEMP TABLE IF NOT EXISTS migrate_pin (rid INTEGER PRIMARY KEY);
      CREATE TEMP TABLE IF NOT EXISTS migrate_pending (rid INTEGER PRIMARY KEY);
      DELETE FROM temp.migrate_pin; DELETE FROM temp.migrate_pending;`);
    const n = this.db.prepare(`INSERT INTO temp.migrate_pin (rid) ${EmbeddedStore.BELOW_RIDS}`).run(target).changes;
    this.db.exec("INSERT INTO temp.migrate_pending (rid) SELECT rid FROM temp.migrate_pin");
    return n;
  }

  async pendingCount(): Promise<number> {
    const n = (this.stmt("SELECT count(*) AS n FROM temp.migrate_pending").get() as { n: number }).n;
    // Nothing left to write: what the preflight kept is not needed any more.
    if (n === 0) {
      this.staged = undefined;
      await this.checkpointHere();
    }
    return n;
  }

  async countBelow(target: number, pinnedOnly: boolean): Promise<number> {
    const sql = pinnedOnly
      ? `SELECT count(*) AS n FROM temp.migrate_pin p JOIN records r ON r.rid = p.rid
           WHERE r.schema_version IS NULL OR r.schema_version < ?`
      : `SELECT count(*) AS n FROM (${EmbeddedStore.BELOW_RIDS})`;
    return (this.stmt(sql).get(target) as { n: number }).n;
  }

  /**
   * What the forward preflight computed, per pinned rid, for the passes to
   * write instead of running every step over the record a second time: the
   * encoded row, the indexed columns it was computed from, and whether its
   * write may be quiet (see rewritePass). `seq` is the change-log position
   * the entries are known to be current at. A record logged as written
   * after it, or whose short_id or schema_version column changed (which
   * every quiet write of another sweep does), is computed afresh.
   */
  private staged: MigrationStage | undefined;

  /**
   * The pin in chunks of rids (see SweepChunks), each read in one read
   * transaction. What `visit` returns is encoded and kept for the passes
   * (up to STAGE_MAX_CHARS of payload text; past that a pass computes the
   * rest again). Records mint from one ascending list of ids, so the
   * passes, writing in rid order, fill the short_id index in order.
   *
   * With the shipped registry and at least `sweepWorkerFrom` pinned records
   * in a file, a worker thread computes chunks too: on two cores that about
   * halves the preflight. The first rewrite that throws stops both, and the
   * failure of the lowest rid is the one raised, as one thread alone would
   * have met it.
   */
  async scanPinned(target: number, _budget: BatchBudget, visit: (row: VersionedRow, ctx: StepContext) => Payload | void, shipped: boolean): Promise<void> {
    this.staged = undefined;
    const stage = new MigrationStage(target, 0);
    // Read before any chunk's snapshot, and again after the last.
    const dataVersion = this.readDataVersion();
    const rids = this.sharedRids(this.stmt("SELECT rid FROM temp.migrate_pin ORDER BY rid").pluck().all() as number[]);
    const mint = ascendingShortIdValues(rids.length);
    const file = this.fileName();
    const worker = shipped && file !== undefined && rids.length >= (this.opts.sweepWorkerFrom ?? SWEEP_WORKER_FROM) ? { file, mint } : undefined;
    const sweep = new SweepChunks("forward", target, rids, SWEEP_CHUNK_ROWS, STAGE_MAX_CHARS, stage, this.chunkHere("forward", target, rids, visit, mint, "throw"), worker);
    try {
      while (sweep.computeNext());
      await sweep.settle();
    } catch (err) {
      // A read that failed on a damaged file: the check's refusal says why.
      await this.integrityChecked();
      throw err;
    } finally {
      sweep.stop();
    }
    if (sweep.failure) throw sweep.failure.error;
    stage.seq = Number.isFinite(sweep.seq) ? sweep.seq : this.headSeq();
    // No other connection committed while the preflight read: every entry holds what its record holds now.
    stage.trustedAt = this.readDataVersion() === dataVersion ? dataVersion : undefined;
    this.staged = stage;
  }

  /** Rids in a buffer a worker thread can read too. */
  private sharedRids(list: number[]): Float64Array {
    const rids = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, list.length)), 0, list.length);
    rids.set(list);
    return rids;
  }

  /** How the main thread computes chunk k of a sweep over `rids`: in a read transaction of its own, with the log head it read at. */
  private chunkHere(
    direction: SweepDirection,
    version: number,
    rids: Float64Array,
    visit: (row: VersionedRow, ctx: StepContext) => Payload | void | undefined,
    mint: Float64Array | undefined,
    failures: "throw" | "skip",
  ): ComputeHere {
    const stmt = this.stmt(CHUNK_ROWS_SQL[direction]).raw(true);
    const read: RowSource = (lo, hi, v) => stmt.iterate(lo, hi, v) as Iterable<SweepRow>;
    return (k, keep) =>
      // Deferred: the log head and the rows are read from one snapshot.
      this.db.transaction(() => {
        const seq = this.headSeq();
        return { seq, chunk: scanChunk(read, rids, k, SWEEP_CHUNK_ROWS, version, visit, mint, keep, failures) };
      })();
  }

  /** The database file, or undefined for a store in memory (which no other thread can open). */
  private fileName(): string | undefined {
    return this.opts.dataDir === ":memory:" ? undefined : join(this.opts.dataDir, "engram.db");
  }

  /**
   * Counting the records above a version walks the whole index range, and a
   * revert counts once per pass: over a large store that is quadratic. So the
   * last count is kept with the change-log head and the data version it was
   * true at, and a pass that finds both unmoved (nothing else wrote in
   * between: another connection's commit moves the data version, a write of
   * this one the log head) hands on the count less the rows it moved down;
   * anything else forces a real count.
   */
  private aboveCount: { version: number; seq: number; dv: number; n: number } | undefined;

  private headSeq(): number {
    return (this.stmt(CHANGE_LOG_HEAD_SQL).get() as { s: number }).s;
  }

  async countAbove(version: number): Promise<number> {
    const seq = this.headSeq();
    const dv = this.readDataVersion();
    const known = this.aboveCount;
    if (known && known.version === version && known.seq === seq && known.dv === dv) return known.n;
    const n = (this.stmt("SELECT count(*) AS n FROM records WHERE schema_version > ?").get(version) as { n: number }).n;
    this.aboveCount = { version, seq, dv, n };
    // Nothing left to revert: what the worker computed is not needed any more.
    if (n === 0 && this.revertAhead?.to === version) this.dropAhead();
    if (n === 0) await this.checkpointHere();
    return n;
  }

  async versionHistogramAbove(version: number): Promise<Map<number, number>> {
    this.tuneForSweep();
    const rows = this.db
      .prepare("SELECT schema_version AS v, count(*) AS n FROM records WHERE schema_version > ? GROUP BY schema_version")
      .all(version) as { v: number; n: number }[];
    return new Map(rows.map((r) => [r.v, r.n]));
  }

  /** Set once this connection has run a sweep pass. */
  private sweeping = false;

  /**
   * A sweep rewrites every page of the table and, minting short ids, random
   * pages of an index. Checkpointing at SQLite's default 1000 WAL pages
   * would copy and fsync the same pages again and again; at 16384 (64 MiB
   * of WAL) and with a 64 MiB page cache a page is mostly written back once.
   * Commits, and what a crash keeps, are unchanged. For this connection
   * only, from its first sweep call on.
   */
  private tuneForSweep(): void {
    if (this.sweeping) return;
    this.db.pragma("wal_autocheckpoint = 16384");
    this.db.pragma("cache_size = -65536");
    this.sweeping = true;
  }

  /** Set while a sweep's passes run with their checkpoints on another thread. */
  private checkpointer: WalCheckpointer | undefined;

  /**
   * From a sweep's first pass over a file on, its checkpoints run on a
   * worker (see WalCheckpointer) instead of inside the passes' commits.
   */
  private checkpointElsewhere(): void {
    const file = this.fileName();
    if (this.checkpointer || file === undefined) return;
    this.checkpointer = new WalCheckpointer(file);
    this.db.pragma("wal_autocheckpoint = 0");
  }

  /** Hands checkpoints back to this connection once a sweep has nothing left to write. */
  private async checkpointHere(): Promise<void> {
    const c = this.checkpointer;
    if (!c) return;
    this.checkpointer = undefined;
    await c.stop();
    // What the worker's rounds left (one that met a busy lock gives up at once) is folded in here.
    this.db.pragma("wal_checkpoint(PASSIVE)");
    this.db.pragma("wal_autocheckpoint = 16384");
  }

  /**
   * A pass writes each row quietly when it can: when the new payload keeps
   * every key another process mirrors or indexes (the MIRRORED_COLUMNS,
   * content, tags, citations) and the write moves the row's schema_version,
   * the UPDATE sets only short_id, schema_version and payload, which fires
   * no trigger: no change-log row (no reader's mirror changes) and no FTS
   * comparison, about a third of a pass. Any other write names every column
   * and is logged and indexed like an ordinary write. The mirrored values are
   * taken (and frozen, so a rewrite cannot edit them in place) before
   * `rewrite` sees the row, so the comparison is by identity.
   */
  async rewritePass(source: PassSource, budget: BatchBudget, version: number, rewrite: RowRewrite): Promise<WriteOutcome[]> {
    this.tuneForSweep();
    type Read = { rid: number; id: string | null; short_id: string | null; schema_version: number | null; payload?: string | null };
    const pinned = "pinnedBelow" in source;
    const staged = this.staged;
    const ahead = !pinned && this.revertAhead?.to === source.above && version === source.above ? this.revertAhead : undefined;
    // No write before the file is known sound; a revert computes rewrites meanwhile.
    while (this.alongsidePending && ahead?.sweep.computeNext()) await new Promise<void>((resolve) => setImmediate(resolve));
    await this.integrityChecked();
    this.checkpointElsewhere();
    if (ahead) await this.readyAhead(ahead);
    const stage = pinned
      ? staged !== undefined && staged.target === source.pinnedBelow && version === staged.target
        ? staged
        : undefined
      : ahead && Number.isFinite(ahead.sweep.seq)
        ? ahead.stage
        : undefined;
    // Pinned: the head of the pending backlog, with rows gone meanwhile (id null) kept so they can be dropped.
    // Above: in the order a revert's worker computes them. With a stage the payload is read only for the rows computed afresh.
    const read = pinned
      ? this.stmt(`SELECT q.rid, r.id, r.short_id, r.schema_version${stage ? "" : ", r.payload"} FROM temp.migrate_pending q
          LEFT JOIN records r ON r.rid = q.rid ORDER BY q.rid LIMIT ?`)
      : this.stmt(`SELECT rid, id, short_id, schema_version${stage ? "" : ", payload"} FROM records WHERE schema_version > ? ORDER BY schema_version, rid LIMIT ?`);
    const payloadOf = this.stmt("SELECT payload AS rewrite_source FROM records WHERE rid = ?").pluck();
    const drop = pinned ? this.stmt("DELETE FROM temp.migrate_pending WHERE rid = ?") : undefined;
    const dropRange = pinned ? this.stmt("DELETE FROM temp.migrate_pending WHERE rid >= ? AND rid <= ?") : undefined;
    const outcomes: WriteOutcome[] = [];
    const known = this.aboveCount;
    this.aboveCount = undefined;
    let nextCount: typeof known;
    let stageSeq: number | undefined;
    let processed = 0;
    // Immediate, like transaction(): wait for a concurrent writer instead of failing.
    this.db
      .transaction(() => {
        const counted =
          !pinned && known !== undefined && known.version === source.above && known.seq === this.headSeq() && known.dv === this.readDataVersion();
        if (stage) this.unstageLogged(stage);
        const rows = (
          pinned && stage && this.stageTrusted(stage) ? this.stagedHead(stage, budget.rows) : pinned ? read.all(budget.rows) : read.all(source.above, budget.rows)
        ) as Read[];
        // The rows are the head of the backlog in rid order, so when every one
        // of them leaves it, one range delete drops them all.
        const failed: number[] = [];
        let last: number | undefined;
        let bytes = 0;
        for (const r of rows) {
          // Past the first record, a batch ends once it holds the byte budget; the rest wait for the next pass.
          if (bytes >= budget.bytes) break;
          const v = r.schema_version ?? 0;
          if (!(pinned && (r.id === null || (r.schema_version !== null && v >= source.pinnedBelow)))) {
            const st = stage?.take(r.rid, r.short_id, r.schema_version);
            let record: MemoryRecord | PreEncoded;
            let quiet: boolean;
            if (st !== undefined) {
              bytes += st.bytes;
              quiet = st.quiet;
              record = st.quiet
                ? new PreEncoded({ id: r.id!, short_id: st.short_id, schema_version: version, payload: st.payload }, false)
                : new PreEncoded(st.columns, true);
            } else {
              const text = r.payload ?? (payloadOf.get(r.rid) as string);
              bytes += Buffer.byteLength(text, "utf8");
              const payload = JSON.parse(text) as Payload;
              const before = mirroredValues(payload);
              const next = rewrite({ id: r.id!, version: v, payload });
              if (next === undefined) break;
              record = next as unknown as MemoryRecord;
              quiet = canBeQuiet(before, next, r.schema_version, version);
            }
            try {
              outcomes.push(this.writeRecord(record, undefined, version, { stored: r, quiet }) ? "ok" : "gone");
            } catch (err) {
              outcomes.push(err as Error);
              // A write that failed leaves its record pending, so the next pass retries it.
              failed.push(r.rid);
            }
          }
          last = r.rid;
          processed++;
        }
        if (pinned && last !== undefined) {
          if (failed.length === 0) dropRange!.run(rows[0]!.rid, last);
          else for (const r of rows) if (r.rid <= last && !failed.includes(r.rid)) drop!.run(r.rid);
        }
        if (counted && !pinned && version <= source.above) {
          const moved = outcomes.filter((o) => o === "ok").length;
          nextCount = { version: source.above, seq: this.headSeq(), dv: this.readDataVersion(), n: known.n - moved };
        }
        // What this pass logged itself concerns rows it has just written, which leave the backlog.
        if (stage) stageSeq = this.headSeq();
      })
      .immediate();
    // Only a committed pass hands its count and its log position on; a stage
    // a worker still feeds stays at the worker's snapshot, which its next
    // chunks are current at.
    this.aboveCount = nextCount;
    if (ahead) ahead.read += processed;
    if (stage && stageSeq !== undefined && (!ahead || ahead.sweep.complete)) stage.seq = stageSeq;
    this.afterWrite();
    return outcomes;
  }

  /**
   * Whether a forward pass, inside its write transaction, may take the
   * head of the backlog from the stage instead of reading each record's row
   * (about a tenth of a forward sweep over 100,000 records). It may while no
   * other connection has committed since the preflight began: this
   * connection's own writes since are either passes, which write only
   * records that then leave the backlog, or logged, and unstageLogged has
   * dropped the entries of those records already. A commit of any other
   * connection (a quiet write of another sweep logs nothing) ends the trust
   * for the rest of the sweep.
   */
  private stageTrusted(stage: MigrationStage): boolean {
    if (stage.trustedAt !== undefined && this.readDataVersion() !== stage.trustedAt) stage.trustedAt = undefined;
    return stage.trustedAt !== undefined;
  }

  /** The head of the pending backlog as a pass reads it, with the columns of staged records from the stage and the rest from their rows. */
  private stagedHead(stage: MigrationStage, limit: number): { rid: number; id: string | null; short_id: string | null; schema_version: number | null }[] {
    const rids = this.stmt("SELECT rid FROM temp.migrate_pending ORDER BY rid LIMIT ?").pluck().all(limit) as number[];
    const row = this.stmt("SELECT rid, id, short_id, schema_version FROM records WHERE rid = ?");
    return rids.map(
      (rid) =>
        stage.peek(rid) ??
        (row.get(rid) as { rid: number; id: string; short_id: string | null; schema_version: number | null } | undefined) ?? {
          rid,
          id: null,
          short_id: null,
          schema_version: null,
        },
    );
  }

  /**
   * A revert's rewrites computed ahead of its passes (see
   * computeRevertAhead), and how many rows the passes have read so far,
   * which tells which chunk the next pass reads.
   */
  private revertAhead: { to: number; stage: MigrationStage; sweep: SweepChunks; read: number } | undefined;

  /**
   * With the shipped registry and at least `sweepWorkerFrom` records above
   * `to` in a file, a worker thread computes the revert's rewrites in
   * chunks, in the order the passes read records, and the passes write them
   * (checked like a forward preflight's) while it computes the next; the
   * main thread computes a chunk itself only when the pass it is about to
   * write is not ready. A record left out (it changed since, its version
   * refuses, its inverse misbehaves) is computed by the pass, which refuses
   * or fails exactly as it would alone.
   */
  computeRevertAhead(to: number, visit: (row: VersionedRow) => Payload | undefined): void {
    this.dropAhead();
    const file = this.fileName();
    if (file === undefined) return;
    const list = this.stmt("SELECT rid FROM records WHERE schema_version > ? ORDER BY schema_version, rid").pluck().all(to) as number[];
    if (list.length < (this.opts.sweepWorkerFrom ?? SWEEP_WORKER_FROM)) return;
    const rids = this.sharedRids(list);
    const stage = new MigrationStage(to, 0);
    const here = this.chunkHere("backward", to, rids, visit, undefined, "skip");
    const sweep = new SweepChunks("backward", to, rids, SWEEP_CHUNK_ROWS, STAGE_MAX_CHARS, stage, here, { file, mint: undefined });
    this.revertAhead = { to, stage, sweep, read: 0 };
  }

  /** Makes sure the chunk the next pass reads is staged: computes one here, or waits for the worker's, whichever frees it sooner. */
  private async readyAhead(ahead: NonNullable<EmbeddedStore["revertAhead"]>): Promise<void> {
    const { sweep } = ahead;
    sweep.collect();
    const need = Math.floor(ahead.read / SWEEP_CHUNK_ROWS);
    while (need < sweep.chunks && !sweep.has(need)) {
      if (sweep.computeNext()) {
        // The worker's chunks arrive as messages, which only a turn of the event loop lets in.
        await new Promise<void>((resolve) => setImmediate(resolve));
        sweep.collect();
        continue;
      }
      if (!(await sweep.waitFor(need))) break;
    }
    // Trusted from the oldest snapshot any chunk staged so far was read at.
    if (Number.isFinite(sweep.seq)) ahead.stage.seq = sweep.seq;
  }

  private dropAhead(): void {
    this.revertAhead?.sweep.stop();
    this.revertAhead = undefined;
  }

  /** Drops the staged rewrite of every record the change log shows written since the stage was last current. */
  private unstageLogged(stage: MigrationStage): void {
    const logged = this.stmt("SELECT rid AS logged FROM change_log WHERE seq > ?").pluck().all(stage.seq) as number[];
    for (const rid of logged) stage.drop(rid);
  }

  async getMeta(key: string): Promise<string | undefined> {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }
}

/** The log line of a background check that failed: the file, the cause, the recovery. */
function checkFailed(r: StoreOpenError): string {
  return `integrity check of ${r.file} failed: ${r.cause_}; ${r.recovery}`;
}

/** The best `k` of two hit lists, best first, equal scores by ascending key (as the index orders them). */
function mergeHits(a: readonly VectorHit[], b: readonly VectorHit[], k: number): VectorHit[] {
  return [...a, ...b].sort((x, y) => y.score - x.score || x.key - y.key).slice(0, k);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}
