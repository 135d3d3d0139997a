import { deepFreeze } from "../../model/deep-freeze.js";
import type { MemoryRecord } from "../../model/record.js";
import type { Subject } from "../../model/subject.js";
import { decodeRecord } from "../codec.js";
import { matches, readable, type RecordAttrs } from "../record-filter.js";
import type { ListPage, RecordQuery, ResolveResult, SchemaHistogram } from "../store.js";
import { isUuid } from "../../model/uuid.js";
import { toFloat32 } from "../vector-bytes.js";
import type { StoreHandle } from "./handle.js";
import type { Mirror } from "./mirror.js";

/**
 * The Store's reads of records by id and by filter: a point read answers
 * from the mirror and the payload cache when the data version proves them
 * current; a filtered read narrows by the scope index and applies the one
 * predicate (record-filter.ts) to the mirror, reading payloads only for
 * what it returns.
 */
export class RecordReads {
  constructor(
    private readonly h: StoreHandle,
    private readonly m: Mirror,
  ) {}

  private payloadOf(rid: number): MemoryRecord | undefined {
    const row = this.h.stmt("SELECT payload FROM records WHERE rid = ?").get(rid) as { payload: string } | undefined;
    return row ? decodeRecord(row.payload) : undefined;
  }

  getRaw(id: string): MemoryRecord | undefined {
    const row = this.h.stmt("SELECT payload FROM records WHERE id = ?").get(id) as { payload: string } | undefined;
    return row ? decodeRecord(row.payload) : undefined;
  }

  resolve(input: string): ResolveResult {
    if (isUuid(input)) return { kind: "id", id: input.toLowerCase() };
    const rows = this.h.stmt("SELECT id FROM records WHERE short_id = ? LIMIT 2").all(input.toUpperCase()) as { id: string }[];
    if (rows.length === 0) return { kind: "not_found" };
    if (rows.length > 1) return { kind: "ambiguous" };
    return { kind: "id", id: rows[0]!.id };
  }

  getReadable(id: string, subject: Subject): MemoryRecord | undefined {
    return this.pointRead(id, (a) => readable(a, { subject }));
  }

  getOwned(id: string, subject: Subject): MemoryRecord | undefined {
    return this.pointRead(id, (a) => readable(a, { subject, ownerOnly: true }));
  }

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
    if (this.m.loaded) {
      const rid = this.m.ridById.get(id);
      const a = rid === undefined ? undefined : this.m.attrs.get(rid);
      if (a && admits(a)) {
        const cached = this.m.payloads.record(a.rid);
        if (cached !== undefined) {
          if (this.h.readDataVersion() === this.m.dataVersion) return cached;
        } else {
          const row = this.h.stmt("SELECT payload, (SELECT data_version FROM pragma_data_version) AS dv FROM records WHERE rid = ?").get(a.rid) as
            | { payload: string; dv: number }
            | undefined;
          if (row && row.dv === this.m.dataVersion) {
            this.m.payloads.set(a.rid, row.payload);
            return this.m.payloads.record(a.rid) ?? deepFreeze(decodeRecord(row.payload));
          }
        }
      } else if (this.h.readDataVersion() === this.m.dataVersion) {
        return undefined;
      }
    }
    this.m.sync();
    const rid = this.m.ridById.get(id);
    const a = rid === undefined ? undefined : this.m.attrs.get(rid);
    if (!a || !admits(a)) return undefined;
    const rec = this.payloadOf(a.rid);
    return rec && deepFreeze(rec);
  }

  countShortId(shortId: string): number {
    return (this.h.stmt("SELECT count(*) AS n FROM records WHERE short_id = ?").get(shortId.toUpperCase()) as { n: number }).n;
  }

  vectorOf(id: string): Float32Array | undefined {
    const row = this.h.stmt("SELECT v.vector FROM records r JOIN vectors v ON v.rid = r.rid WHERE r.id = ?").get(id) as { vector: Buffer } | undefined;
    return row?.vector ? toFloat32(row.vector) : undefined;
  }

  /** Candidate attrs for a query, narrowed by the scope index when one scope is named. */
  private candidates(q: RecordQuery): RecordAttrs[] {
    this.m.sync();
    // Named ids go straight to their rows: asking every record whether the list holds it would cost records × ids.
    const pool: Iterable<number> = q.ids !== undefined
      ? new Set(q.ids.map((id) => this.m.ridById.get(id)).filter((rid): rid is number => rid !== undefined))
      : q.onlyGated
      ? this.m.gatedRids
      : q.scope !== undefined
        ? (this.m.ridsByScope.get(q.scope) ?? [])
        : this.m.attrs.keys();
    const out: RecordAttrs[] = [];
    for (const rid of pool) {
      const a = this.m.attrs.get(rid)!;
      if (matches(a, q)) out.push(a);
    }
    return out;
  }

  count(query: RecordQuery): number {
    return this.candidates(query).length;
  }

  list(query: RecordQuery, page: ListPage): { records: MemoryRecord[]; total: number } {
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

  tagCounts(query: RecordQuery): Map<string, number> {
    const counts = new Map<string, number>();
    for (const a of this.candidates(query)) for (const t of new Set(a.tags)) counts.set(t, (counts.get(t) ?? 0) + 1);
    return counts;
  }

  scopeCounts(subject: Subject): { scopes: { scope: string; count: number }[]; approximate: boolean } {
    this.m.sync();
    const scopes: { scope: string; count: number }[] = [];
    for (const [scope, st] of this.m.scopeStats) {
      // The same rule as readable(): own records, plus others' shared ones unless anonymous.
      const own = st.byOwner.get(subject.anonymous ? "" : subject.owner) ?? 0;
      const count = subject.anonymous ? own : own + st.shared - (st.sharedByOwner.get(subject.owner) ?? 0);
      if (count > 0) scopes.push({ scope, count });
    }
    scopes.sort((x, y) => (x.scope < y.scope ? -1 : 1));
    return { scopes, approximate: false };
  }

  schemaHistogram(): SchemaHistogram {
    const rows = this.h.db
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
}
