import { argError } from "../argerror/index.js";
import { DEFAULT_LIMITS } from "../core/limits.js";
import { checkTags } from "../core/validate.js";
import type { MemoryRecord } from "../model/record.js";
import { ANONYMOUS } from "../model/subject.js";
import type { RecordQuery, Store } from "../store/index.js";
import { deleteInBatches, isDurableKnowledge, type DeleteProgress } from "./delete-batches.js";

/**
 * `engram spine-review purge`: deletes records recall no longer needs.
 *
 * A record's class is the first of archived, superseded and expired that
 * applies (the order `spine-review scan` buckets them in), and it is
 * eligible when that class was selected and has aged past its window:
 * archived_at at least 90 days ago by default, immediately for superseded
 * (counted from the successor's creation, and only while the successor
 * exists: it is where the content lives on) and expired (counted from
 * not_after). --older-than replaces every selected class's window.
 * --category and --tags narrow the classes; with no class, they (and
 * --older-than, as "created at least this long ago") select records
 * directly, live ones included: the free-form filter path. Discoveries and
 * rules are never eligible.
 *
 * Apply derives the set twice in one run, before and after, and deletes only
 * records in both (same class, same revision): one that became eligible in
 * between is reported `appeared` and kept, one that stopped being eligible
 * is `spared`.
 */

export const PURGE_CLASSES = ["superseded", "expired", "archived"] as const;

export type PurgeClass = (typeof PURGE_CLASSES)[number];
/** The default window of class archived. */
export const ARCHIVED_RETENTION_S = 90 * 86_400;

/**
 * The free-form filter's values, checked before any store is opened: a blank
 * one would read as "no filter" and widen what is deleted (an empty
 * `--category "$C"`), so it is refused, in the envelope a write's tags get.
 */
export function checkPurgeFilter(category: string | undefined, tags: readonly string[]): void {
  if (category !== undefined && category.trim() === "") throw argError("category", "required", "category must not be blank");
  checkTags(tags, DEFAULT_LIMITS);
}

export type PurgeOptions = {
  classes: readonly PurgeClass[];
  /** undefined: every scope. */
  scope?: string;
  category?: string;
  tags: readonly string[];
  /** Whole seconds; undefined when not given (each class's own window). */
  olderThanS?: number;
  apply: boolean;
  /** Unix seconds, read afresh for each derivation. */
  now: () => number;
  onProgress?: DeleteProgress;
  /** Runs between the two derivations of an apply (the CLI's test-only handshake). */
  betweenDerivations?: () => Promise<void>;
};

export type PurgeOutcome = "eligible" | "deleted" | "spared" | "appeared";
export type PurgeRow = { id: string; short_id: string; scope: string; category: string; class: PurgeClass | "filter"; outcome: PurgeOutcome };
export type PurgeReport = {
  dry_run: boolean;
  classes: PurgeClass[];
  scope: string | null;
  category: string | null;
  tags: string[];
  older_than_seconds: number | null;
  eligible: number;
  deleted: number;
  spared: number;
  appeared: number;
  results: PurgeRow[];
};

/** The free-form filter path is engaged: category or tags always, older-than when no class is selected. */
export function purgeFilterPath(o: Pick<PurgeOptions, "classes" | "category" | "tags" | "olderThanS">): boolean {
  return o.category !== undefined || o.tags.length > 0 || (o.olderThanS !== undefined && o.classes.length === 0);
}

type Candidate = { record: MemoryRecord; class: PurgeClass | "filter" };

/** The first class that hides the record, as scan buckets it; undefined for a live or scheduled record. */
function classOf(r: MemoryRecord, now: number): PurgeClass | undefined {
  if (r.archived_at) return "archived";
  if (r.superseded_by) return "superseded";
  if (r.not_after !== undefined && r.not_after <= now) return "expired";
  return undefined;
}

const seconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

function baseQuery(o: PurgeOptions, now: number): RecordQuery {
  return {
    subject: ANONYMOUS,
    allOwners: true,
    gate: null,
    now,
    ...(o.scope !== undefined ? { scope: o.scope } : {}),
    ...(o.category !== undefined ? { categories: [o.category] } : {}),
    ...(o.tags.length > 0 ? { tags: [...o.tags] } : {}),
  };
}

const ALL = { order: "asc", limit: Number.MAX_SAFE_INTEGER } as const;

/** The successors that still exist, with their creation time (unix seconds). */
async function successorsOf(store: Store, records: readonly MemoryRecord[], now: number): Promise<Map<string, number>> {
  const wanted = [...new Set(records.filter((r) => r.superseded_by).map((r) => r.superseded_by!))];
  const found = new Map<string, number>();
  for (let i = 0; i < wanted.length; i += 1000) {
    const { records: got } = await store.list({ subject: ANONYMOUS, allOwners: true, gate: null, now, ids: wanted.slice(i, i + 1000) }, ALL);
    for (const s of got) found.set(s.id, seconds(s.created_at));
  }
  return found;
}

/** One derivation of the eligible set, at the instant `now`. */
async function derive(store: Store, o: PurgeOptions, now: number): Promise<Candidate[]> {
  if (o.classes.length === 0) {
    if (!purgeFilterPath(o)) return [];
    const cutoff = o.olderThanS === undefined ? undefined : new Date((now - o.olderThanS) * 1000).toISOString();
    const { records } = await store.list({ ...baseQuery(o, now), ...(cutoff !== undefined ? { createdBefore: cutoff } : {}) }, ALL);
    return records.filter((r) => !isDurableKnowledge(r)).map((record) => ({ record, class: "filter" as const }));
  }
  const { records } = await store.list({ ...baseQuery(o, now), onlyGated: true }, ALL);
  const selected = new Set(o.classes);
  const hidden = records.filter((r) => !isDurableKnowledge(r)).map((record) => ({ record, class: classOf(record, now) }));
  const successors = selected.has("superseded") ? await successorsOf(store, hidden.filter((c) => c.class === "superseded").map((c) => c.record), now) : new Map<string, number>();
  const out: Candidate[] = [];
  for (const { record: r, class: cls } of hidden) {
    if (cls === undefined || !selected.has(cls)) continue;
    const window = o.olderThanS ?? (cls === "archived" ? ARCHIVED_RETENTION_S : 0);
    const since = cls === "archived" ? seconds(r.archived_at!) : cls === "expired" ? r.not_after! : successors.get(r.superseded_by!);
    if (since !== undefined && Number.isFinite(since) && since <= now - window) out.push({ record: r, class: cls });
  }
  return out;
}

const rowOf = (c: Candidate, outcome: PurgeOutcome): PurgeRow => ({
  id: c.record.id,
  short_id: c.record.short_id,
  scope: c.record.scope,
  category: c.record.category,
  class: c.class,
  outcome,
});

/** The same record in the same state: the same class and the revision it was read at. */
const sameState = (a: Candidate, b: Candidate): boolean => a.class === b.class && a.record.revision === b.record.revision;

const byScopeThenId = (a: PurgeRow, b: PurgeRow): number => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export async function purge(store: Store, o: PurgeOptions): Promise<PurgeReport> {
  const first = await derive(store, o, o.now());
  const report: PurgeReport = {
    dry_run: !o.apply,
    classes: PURGE_CLASSES.filter((c) => o.classes.includes(c)),
    scope: o.scope ?? null,
    category: o.category ?? null,
    tags: [...o.tags],
    older_than_seconds: o.olderThanS ?? null,
    eligible: first.length,
    deleted: 0,
    spared: 0,
    appeared: 0,
    results: [],
  };
  if (!o.apply) {
    report.results = first.map((c) => rowOf(c, "eligible")).sort(byScopeThenId);
    return report;
  }
  await o.betweenDerivations?.();
  const second = new Map((await derive(store, o, o.now())).map((c) => [c.record.id, c]));
  const both: Candidate[] = [];
  for (const c of first) {
    const again = second.get(c.record.id);
    if (again !== undefined && sameState(c, again)) both.push(c);
    else report.results.push(rowOf(c, "spared"));
  }
  const firstIds = new Set(first.map((c) => c.record.id));
  for (const c of second.values()) if (!firstIds.has(c.record.id)) report.results.push(rowOf(c, "appeared"));
  report.deleted = await deleteInBatches(
    store,
    both.map((c) => c.record.id),
    o.onProgress,
  );
  report.results.push(...both.map((c) => rowOf(c, "deleted")));
  report.spared = report.results.filter((r) => r.outcome === "spared").length;
  report.appeared = report.results.filter((r) => r.outcome === "appeared").length;
  report.results.sort(byScopeThenId);
  return report;
}
