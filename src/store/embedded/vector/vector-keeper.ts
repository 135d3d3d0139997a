import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { META_DATABASE_ID } from "../../meta-keys.js";
import { errorName } from "../../store-fault.js";
import { toFloat32 } from "../../vector-bytes.js";
import { IN_LIST_MAX, type StoreHandle } from "../handle.js";
import type { Mirror } from "../mirror.js";
import { CHANGE_LOG_HEAD_SQL } from "../sqlite-schema.js";
import { VectorIndex, type SnapshotFault, type SnapshotOrigin } from "./vector-index.js";

/** Records from which a freshly built or caught-up index is saved at once rather than at close. */
const SNAPSHOT_AT = 4096;
/** Vectors applied per background catch-up slice. */
const CATCH_UP_SLICE = 500;
/** Graph nodes inserted per background slice: about 15 ms of native work at 512 dimensions. */
const GRAPH_SLICE = 64;
/** Records per background slice that get their scope group in a loaded index. */
const GROUP_SLICE = 1000;
/** A progress line at most this often while the index catches up or builds. */
const PROGRESS_EVERY_MS = 2000;

/** The one line a start logs when it meets a damaged vector snapshot (docs/operations.md quotes it). */
export const SNAPSHOT_DAMAGED_MSG = "vector snapshot damaged: set aside, rebuilding the index from the records";

type OriginVerdict = { ok: true; seq: number } | { ok: false; reason: string };

/**
 * Keeps the vector index current with the records: opened from its saved
 * snapshot when that provably reflects this database, else rebuilt; caught
 * up from the change log and its graph built in slices in the background,
 * or inline for a read outside a warm-up; saved again once worth it and at
 * close. Its state (the index, what it may hold stale) sits on the mirror,
 * whose change-log pass feeds it.
 */
export class VectorKeeper {
  private groupQueue: number[] | undefined;
  /** Set while warm() runs in the background; then reads use partial state instead of finishing it inline. */
  private warming: Promise<void> | undefined;

  constructor(
    private readonly h: StoreHandle,
    private readonly m: Mirror,
  ) {}

  /**
   * Loads the mirror and the vector index in the background (then runs
   * `after`), in slices that yield to the event loop; one warm-up at a time.
   */
  warm(after: () => Promise<void>): Promise<void> {
    this.warming ??= this.warmInSlices()
      .then(after)
      .finally(() => {
      this.warming = undefined;
    });
    return this.warming;
  }

  /** True while a warm-up runs. */
  get warmingUp(): boolean {
    return this.warming !== undefined;
  }

  /** At close: a snapshot of the index as the change log leaves it, unless nothing changed. */
  saveAtClose(): void {
    if (this.m.index && this.m.loaded) {
      this.m.sync();
      // A snapshot is an optimisation: one that cannot be written (disk
      // full, read-only) costs the next start a catch-up, never the close.
      if (this.m.indexDirty && this.m.pending.size === 0) {
        try {
          this.saveSnapshot();
        } catch (err) {
          this.h.log.warn("vector snapshot not saved at close; the next start catches up from the change log", { error: errorName(err) });
        }
      }
    }
  }

  private async warmInSlices(): Promise<void> {
    await this.m.loadInSlices();
    if (this.h.closed) return;
    this.m.sync();
    if (!this.m.index) await this.openIndexInSlices();
    if (this.h.closed) return;
    const index = this.m.index!;

    const total = this.m.pending.size;
    let done = 0;
    let lastReport = Date.now();
    while (this.m.pending.size > 0) {
      if (!(await this.h.yieldSlice())) return;
      done += this.applyPending(CATCH_UP_SLICE);
      if (Date.now() - lastReport >= PROGRESS_EVERY_MS && this.m.pending.size > 0) {
        lastReport = Date.now();
        this.h.log.info(`vector index catching up: ${Math.min(done, total)}/${total} records`, { done: Math.min(done, total), total });
      }
    }
    if (total > 0) this.h.log.info(`vector index caught up: ${total}/${total} records`, { done: total, total });
    while (!this.assignGroups(GROUP_SLICE)) if (!(await this.h.yieldSlice())) return;

    if (index.graphPending) {
      const size = index.size;
      let built = 0;
      this.h.log.info(`vector index building its graph: 0/${size} records`, { done: 0, total: size });
      for (;;) {
        if (!(await this.h.yieldSlice())) return;
        if (index.buildGraphStep(GRAPH_SLICE)) break;
        built += GRAPH_SLICE;
        if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
          lastReport = Date.now();
          this.h.log.info(`vector index building its graph: ${Math.min(built, size)}/${size} records`, { done: Math.min(built, size), total: size });
        }
      }
    }
    this.saveIfWorthIt(total);
    this.h.log.info("vector index ready", { records: index.size });
  }

  private snapshotDir(): string | undefined {
    return this.h.opts.dataDir === ":memory:" ? undefined : join(this.h.opts.dataDir, "vectors");
  }

  /**
   * The vector index for a read. Outside a background warm-up it is brought
   * fully up to date first (the operator verbs and tests that never warm);
   * during one, the caller also scores `pending` itself.
   */
  vectors(): VectorIndex {
    if (!this.m.index) this.openIndex();
    if (!this.warming) this.finishIndexInline();
    return this.m.index!;
  }

  private finishIndexInline(): void {
    const index = this.m.index!;
    const caughtUp = this.m.pending.size;
    while (this.m.pending.size > 0) this.applyPending(Number.MAX_SAFE_INTEGER);
    this.assignGroups(Number.MAX_SAFE_INTEGER);
    const built = index.graphPending;
    if (built) index.buildGraphStep(Number.MAX_SAFE_INTEGER);
    if (caughtUp > 0 || built) this.saveIfWorthIt(caughtUp);
  }

  private saveIfWorthIt(changes: number): void {
    if (!this.m.index || !this.m.indexDirty || this.m.pending.size > 0) return;
    if (this.m.index.size < SNAPSHOT_AT && changes < SNAPSHOT_AT) return;
    try {
      this.saveSnapshot();
    } catch (err) {
      this.h.log.warn("vector snapshot not saved; the next start catches up from the change log", { error: errorName(err) });
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
    let fault: SnapshotFault | undefined;
    const loaded = dir ? VectorIndex.load(dir, this.h.opts.dim, {}, { graphBuild: "stepwise" }, (f) => (fault = f)) : undefined;
    this.adoptIndex(dir, loaded, fault);
  }

  /**
   * openIndex for the warm-up: the snapshot is read in slices, so a large
   * one (2 GB at a million records) never holds the event loop. A read that
   * needs the index meanwhile opens it inline (vectors()); this load then
   * stops at its next slice and that index stands.
   */
  private async openIndexInSlices(): Promise<void> {
    const dir = this.snapshotDir();
    const between = async () => this.m.index === undefined && (await this.h.yieldSlice()) && this.m.index === undefined;
    let fault: SnapshotFault | undefined;
    const report = (f: SnapshotFault) => (fault = f);
    const loaded = dir ? await VectorIndex.loadInSlices(dir, this.h.opts.dim, {}, { graphBuild: "stepwise" }, between, undefined, report) : undefined;
    // A read that opened the index inline meanwhile made its own report.
    if (this.m.index !== undefined || this.h.closed) return;
    // Writes may have landed during the slices: the change log is read up to where the mirror is now.
    this.m.sync();
    this.adoptIndex(dir, loaded, fault);
  }

  /** One line per damaged snapshot: the load set it aside, so no later start meets it again. */
  private logDamage(fault: SnapshotFault): void {
    this.h.log.warn(SNAPSHOT_DAMAGED_MSG, {
      reason: fault.reason,
      files: fault.damaged.join(","),
      records: this.m.attrs.size,
    });
  }

  private adoptIndex(dir: string | undefined, loaded: VectorIndex | undefined, fault?: SnapshotFault): void {
    const verdict: OriginVerdict = loaded ? this.checkOrigin(loaded.origin) : { ok: false, reason: dir ? "no usable snapshot" : "in memory" };
    this.m.pending.clear();
    this.groupQueue = undefined;
    if (loaded && verdict.ok) {
      const rows = this.h.db
        .prepare("SELECT DISTINCT rid FROM change_log WHERE seq > ? AND seq <= ? AND vec != 0")
        .all(verdict.seq, this.m.lastSeq) as { rid: number }[];
      for (const { rid } of rows) this.m.pending.add(rid);
      this.m.index = loaded;
      this.m.indexDirty = false;
      this.m.groupsCurrent = false;
      if (this.m.pending.size > 0) {
        this.h.log.info("vector snapshot is behind the database: catching up from the change log", {
          snapshot_seq: verdict.seq,
          database_seq: this.m.lastSeq,
          records: this.m.pending.size,
        });
      }
      return;
    }
    if (loaded && !verdict.ok) {
      this.h.log.warn("vector snapshot does not match the database: rebuilding the index from the records", { reason: verdict.reason, records: this.m.attrs.size });
    } else if (fault !== undefined && fault.damaged.length > 0) {
      this.logDamage(fault);
    } else if (dir && this.m.attrs.size > 0) {
      this.h.log.info("no usable vector snapshot: building the index from the records", { reason: fault?.reason ?? "no snapshot", records: this.m.attrs.size });
    }
    this.m.index = new VectorIndex(this.h.opts.dim, {}, { graphBuild: "stepwise" });
    this.m.indexDirty = true;
    // Every record arrives through applyBatch, which groups it.
    this.m.groupsCurrent = true;
    for (const rid of this.m.attrs.keys()) this.m.pending.add(rid);
  }

  private checkOrigin(origin: SnapshotOrigin): OriginVerdict {
    const id = this.databaseId(false);
    if (id === undefined || origin.database !== id) return { ok: false, reason: "snapshot of another database" };
    const seq = origin.seq;
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) return { ok: false, reason: "snapshot without a change-log position" };
    const head = (this.h.db.prepare(CHANGE_LOG_HEAD_SQL).get() as { s: number }).s;
    if (seq > head) return { ok: false, reason: "snapshot newer than the database" };
    if (seq > 0) {
      const row = this.h.db.prepare("SELECT rid FROM change_log WHERE seq = ?").get(seq) as { rid: number } | undefined;
      if (!row || row.rid !== origin.seqRid) return { ok: false, reason: "change log does not hold the snapshot's position" };
    }
    return { ok: true, seq };
  }

  /** Groups up to `max` more records of a loaded index by their scope; true once all are. */
  private assignGroups(max: number): boolean {
    if (this.m.groupsCurrent) return true;
    const index = this.m.index!;
    const queue = (this.groupQueue ??= [...index.keys()]);
    for (let n = 0; n < max && queue.length > 0; n++) {
      const rid = queue.pop()!;
      index.setGroup(rid, this.m.attrs.get(rid)?.scope);
    }
    if (queue.length > 0) return false;
    this.groupQueue = undefined;
    this.m.groupsCurrent = true;
    return true;
  }

  /** Applies up to `max` pending records to the index from SQLite; returns how many. */
  private applyPending(max: number): number {
    const index = this.m.index!;
    let n = 0;
    const batch: number[] = [];
    for (const rid of this.m.pending) {
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
        index.setGroup(rid, this.m.attrs.get(rid)?.scope);
      } else index.remove(rid);
      this.m.pending.delete(rid);
    }
    this.m.indexDirty = true;
  }

  /** The identity a snapshot names to say which database it was taken from; created on the first save. */
  private databaseId(create: boolean): string | undefined {
    const row = this.h.db.prepare("SELECT value FROM meta WHERE key = ?").get(META_DATABASE_ID) as { value: string } | undefined;
    if (row || !create) return row?.value;
    const id = randomUUID();
    this.h.db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)").run(META_DATABASE_ID, id);
    return this.databaseId(false);
  }

  private saveSnapshot(): void {
    const dir = this.snapshotDir();
    if (!dir || !this.m.index || this.m.pending.size > 0) return;
    const seqRid = this.m.lastSeq === 0 ? -1 : ((this.h.db.prepare("SELECT rid FROM change_log WHERE seq = ?").get(this.m.lastSeq) as { rid: number } | undefined)?.rid ?? -1);
    this.m.index.save(dir, { database: this.databaseId(true)!, seq: this.m.lastSeq, seqRid });
    this.m.indexDirty = false;
  }

  /** The stored vectors of `rids`, read in lists SQLite can bind. */
  vectorsOf(rids: readonly number[]): { rid: number; vector: Buffer }[] {
    const out: { rid: number; vector: Buffer }[] = [];
    for (let i = 0; i < rids.length; i += IN_LIST_MAX) {
      const part = rids.slice(i, i + IN_LIST_MAX);
      const rows = this.h.db
        .prepare(`SELECT rid, vector FROM vectors WHERE rid IN (${part.map(() => "?").join(",")})`)
        .all(...part) as { rid: number; vector: Buffer }[];
      out.push(...rows);
    }
    return out;
  }
}
