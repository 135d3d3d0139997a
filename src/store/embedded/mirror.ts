import { citationKey, type RecordAttrs } from "../record-filter.js";
import { toFloat32 } from "../vector-bytes.js";
import type { StoreHandle } from "./handle.js";
import { DecodedRows } from "./decoded-rows.js";
import { PayloadCache } from "./payload-cache.js";
import type { IndexedColumns } from "../codec.js";
import { CHANGE_LOG_HEAD_SQL, MIRRORED_COLUMNS } from "./sqlite-schema.js";
import type { VectorIndex } from "./vector/vector-index.js";

type ScopeStats = { byOwner: Map<string, number>; sharedByOwner: Map<string, number>; shared: number };

function isGated(a: RecordAttrs): boolean {
  return a.archived || a.superseded || a.notBefore !== null || a.notAfter !== null;
}

/** Mirror rows read per background slice (a few milliseconds each). */
const MIRROR_SLICE = 2000;

/** A mirror row: the mirrored columns as the codec types them (a column missing there fails to compile), plus what the filters read from the payload. */
type Row = { rid: number; tags: string | null; citations: string | null } & Pick<IndexedColumns, (typeof MIRRORED_COLUMNS)[number]>;

const ATTR_COLUMNS = `rid, ${MIRRORED_COLUMNS.join(", ")}, json_extract(payload, '$.tags') AS tags, json_extract(payload, '$.citations') AS citations`;

/**
 * The store's in-memory mirror of the records' filter columns, so list,
 * count, search and tag counts share one predicate (record-filter.ts) and
 * never scan JSON, kept current from the change log that triggers write:
 * this connection's writes and every other connection's are caught up by
 * `sync`. The same pass feeds the vector index its changed vectors, so the
 * index's catch-up state lives here too; vector-keeper.ts opens, catches
 * up and saves the index itself. Recently read payloads, and the records
 * searches decoded, are kept beside the mirror and dropped with a record's
 * attributes.
 */
export class Mirror {
  readonly attrs = new Map<number, RecordAttrs>();
  readonly ridById = new Map<string, number>();
  readonly ridsByScope = new Map<string, Set<number>>();
  /** Per scope: records per owner and shared records per owner, so scope counts cost O(scopes). */
  readonly scopeStats = new Map<string, ScopeStats>();
  /** Records in some gated state (archived, superseded, windowed): what a lifted read can add. */
  readonly gatedRids = new Set<number>();
  /** Built on first use: operator verbs that never search never pay for it. */
  index: VectorIndex | undefined;
  /**
   * Records whose entry in the index may be missing or stale: changed since
   * the snapshot, or not yet loaded on a rebuild. A search scores them from
   * SQLite directly until the catch-up has applied them.
   */
  readonly pending = new Set<number>();
  indexDirty = false;
  /**
   * True while every record in the index sits in the group of its scope, so
   * a one-scope search may scan that group's block. A loaded snapshot has no
   * groups; they are assigned in the background (the keeper's `groupQueue`
   * holds the records still to do), and until then one-scope searches walk the graph.
   */
  groupsCurrent = false;
  lastSeq = 0;
  dataVersion = -1;
  /**
   * Counts the times the mirror changed: a load begun, another connection's
   * commit seen, a change-log row applied. Work done before an await is
   * still true after it while this is unchanged.
   */
  generation = 0;
  /** Point reads' payload texts; a rid is dropped wherever its attributes are. */
  readonly payloads = new PayloadCache();
  /** Records searches decoded, dropped wherever a payload is. */
  readonly searched = new DecodedRows();

  constructor(private readonly h: StoreHandle) {}

  /**
   * Starts a mirror load at the current change-log position. Rows are then
   * read in rid order; a row written meanwhile is read as it now is, or
   * re-read by the change-log pass that follows the load, so the result is
   * the same as one load at the end.
   */
  private beginLoad(): void {
    this.attrs.clear();
    this.payloads.clear();
    this.searched.clear();
    this.ridById.clear();
    this.ridsByScope.clear();
    this.scopeStats.clear();
    this.gatedRids.clear();
    this.generation++;
    this.lastSeq = (this.h.db.prepare(CHANGE_LOG_HEAD_SQL).get() as { s: number }).s;
    this.dataVersion = this.h.readDataVersion();
    this.cursor = 0;
  }

  /** Reads up to `limit` more rows into the mirror; false once every row is in. */
  private loadRows(limit: number): boolean {
    const rows = this.h.stmt(`SELECT ${ATTR_COLUMNS} FROM records WHERE rid > ? ORDER BY rid LIMIT ?`).all(this.cursor, limit) as Row[];
    for (const row of rows) {
      this.dropAttrs(row.rid);
      this.applyRow(row);
    }
    if (rows.length > 0) this.cursor = rows[rows.length - 1]!.rid;
    return rows.length === limit;
  }

  async loadInSlices(): Promise<void> {
    if (this.loaded) return;
    if (this.cursor === undefined) this.beginLoad();
    while (!this.loaded) {
      if (!this.loadRows(MIRROR_SLICE)) {
        this.sync(); // finishes the load and replays what was written during it
        return;
      }
      if (!(await this.h.yieldSlice())) return;
    }
  }

  /** False until the first filtered read: operator verbs that only sweep SQL never load the mirror. */
  loaded = false;
  /** The last rid read while a mirror load is under way; undefined otherwise. */
  private cursor: number | undefined;

  /** Catches up with writes from this and other connections. */
  sync(force = false): void {
    if (!this.loaded) {
      if (this.cursor === undefined) this.beginLoad();
      while (this.loadRows(50_000));
      this.cursor = undefined;
      this.loaded = true;
      // Writes of this connection made during a sliced load leave
      // data_version alone; replay the change log unconditionally.
      force = true;
    }
    const dv = this.h.readDataVersion();
    if (!force && dv === this.dataVersion) return;
    // Another connection committed: a sweep's quiet writes rewrite payloads
    // without a change-log row, so no cached text can be trusted past it.
    if (dv !== this.dataVersion) {
      this.payloads.clear();
      this.searched.clear();
      this.generation++;
    }
    this.dataVersion = dv;
    const changes = this.h.stmt("SELECT seq, rid, vec FROM change_log WHERE seq > ? ORDER BY seq").all(this.lastSeq) as {
      seq: number;
      rid: number;
      vec: number;
    }[];
    if (changes.length === 0) return;
    this.generation++;
    const vecChanged = new Map<number, boolean>();
    for (const c of changes) vecChanged.set(c.rid, (vecChanged.get(c.rid) ?? false) || c.vec !== 0);
    this.lastSeq = changes[changes.length - 1]!.seq;
    const withVector = this.h.stmt(`SELECT ${ATTR_COLUMNS}, (SELECT vector FROM vectors v WHERE v.rid = records.rid) AS vector FROM records WHERE rid = ?`);
    const attrsOnly = this.h.stmt(`SELECT ${ATTR_COLUMNS} FROM records WHERE rid = ?`);
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
        const got = this.h.stmt("SELECT payload FROM records WHERE rid = ?").get(rid) as { payload: string } | undefined;
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
    this.searched.delete(rid);
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

  afterWrite(): void {
    if (this.loaded) this.sync(true);
    if (!this.h.markedHasRecords) this.h.markHasRecords();
  }
}
