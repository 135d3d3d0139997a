import { join } from "node:path";
import { sqliteDriver, type SqliteDatabase, type SqliteStatement } from "./sqlite/index.js";
import type { Logger } from "../../model/logger.js";
import { META_WRITE_PROBE } from "../meta-keys.js";
import { faultCause, storeFaultOf } from "../store-fault.js";
import { quickCheckInWorker } from "./integrity-check.js";
import { damagedRefusal, markHasRecords, openRefusal, prepareDataDir, refuseEmptyWithRecords, type StoreOpenError } from "./open-refusal.js";
import { upgradeLayout, upgradeUpdateTriggers } from "./sqlite-layout.js";
import { CHANGE_LOG_HEAD_SQL, SCHEMA_SQL } from "./sqlite-schema.js";
import { dropWordIndex, markTermIndexIfEmpty, registerTermFunction } from "./term-index.js";
import { WriteHealth } from "./write-health.js";

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

/** How much of the file the open-time integrity check maps (SQLite caps it at its compiled maximum). */
const CHECK_MMAP_BYTES = 2 ** 40;
/** SQLite's bound-parameter limit, with room to spare. */
export const IN_LIST_MAX = 500;

const SILENT: Logger = { info() {}, warn() {}, error() {} };

/**
 * One open engram.db, shared by every part of the embedded store: the
 * connection (opened, upgraded and checked here), its prepared statements,
 * the file's data version and change-log head, the meta table, the
 * evidence that the file once held records, and the integrity check and
 * write health that decide whether the store may be used at all.
 */
/** The main connection's page cache, in KiB. */
export const PAGE_CACHE_KIB = 64 * 1024;

export class StoreHandle {
  readonly db: SqliteDatabase;
  readonly log: Logger;
  readonly health: WriteHealth;
  /** Set once the store is closed: background work must stop touching it. */
  closed = false;

  constructor(readonly opts: EmbeddedStoreOptions) {
    const memory = opts.dataDir === ":memory:";
    const file = memory ? ":memory:" : join(opts.dataDir, "engram.db");
    this.log = opts.log ?? SILENT;
    if (!memory) {
      prepareDataDir(opts.dataDir, file);
      refuseEmptyWithRecords(file, join(opts.dataDir, "vectors"));
    }
    // Outside the try: a driver that cannot load is named as such, never blamed on the file.
    const driver = sqliteDriver();
    let db: SqliteDatabase | undefined;
    try {
      db = driver.open(file, {});
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("busy_timeout = 5000");
      // Statement journals (one per UPDATE inside a sweep's transaction) and
      // the sweep's pin tables stay in memory instead of a temporary file.
      db.pragma("temp_store = MEMORY");
      // A search reads a couple of hundred candidate rows, their terms'
      // postings and counts, all over the file: with SQLite's default 2 MiB
      // of page cache nearly every one was a read() from the OS again. The
      // cache fills only as pages are read, up to this bound.
      db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
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
    this.health = new WriteHealth(this.log, () => this.probeWrite(), opts.writeProbeMs, memory ? "the store" : "engram.db");
    if (!memory && opts.integrityCheck === "background") this.checkInBackground(file);
    if (!memory && opts.integrityCheck === "alongside") this.checkAlongside(file);
  }

  // ---- integrity checks ------------------------------------------------------

  /** An "alongside" integrity check: settles with the refusal an open-time check would have thrown, or with nothing. */
  private alongside: Promise<void> | undefined;
  /** True until the alongside check has settled. */
  alongsidePending = false;

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
  checking: { stop(): void } | undefined;

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

  /** A small committed write, to learn whether the store can write again. */
  private probeWrite(): void {
    this.db
      .prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .run(META_WRITE_PROBE, new Date().toISOString());
  }

  // ---- the connection --------------------------------------------------------

  private readonly statements = new Map<string, SqliteStatement>();

  /** Prepared once per connection: preparing is most of the cost of a small statement. */
  stmt(sql: string): SqliteStatement {
    let st = this.statements.get(sql);
    if (!st) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  private dataVersionStmt: SqliteStatement | undefined;

  /** Every read asks this, so the statement is prepared once: db.pragma() prepares it anew on each call. */
  readDataVersion(): number {
    this.dataVersionStmt ??= this.db.prepare("PRAGMA data_version").pluck();
    return this.dataVersionStmt.get() as number;
  }

  headSeq(): number {
    return (this.stmt(CHANGE_LOG_HEAD_SQL).get() as { s: number }).s;
  }

  /** The database file, or undefined for a store in memory (which no other thread can open). */
  fileName(): string | undefined {
    return this.opts.dataDir === ":memory:" ? undefined : join(this.opts.dataDir, "engram.db");
  }

  /** False once the store is closed: the background work must stop touching it. */
  async yieldSlice(): Promise<boolean> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.opts.betweenSlices) await this.opts.betweenSlices();
    return !this.closed;
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  // ---- evidence of records ---------------------------------------------------

  /** Set once engram.db.has-records exists beside the file (or the store is in memory). */
  markedHasRecords = false;

  /** Leaves the evidence an empty file at a later start is checked against: once, at the first write that leaves records. */
  markHasRecords(): void {
    if (this.opts.dataDir === ":memory:") {
      this.markedHasRecords = true;
      return;
    }
    if (this.stmt("SELECT 1 FROM records LIMIT 1").get() === undefined) return;
    this.markedHasRecords = markHasRecords(join(this.opts.dataDir, "engram.db"));
  }
}

/** The log line of a background check that failed: the file, the cause, the recovery. */
function checkFailed(r: StoreOpenError): string {
  return `integrity check of ${r.file} failed: ${r.cause_}; ${r.recovery}`;
}
