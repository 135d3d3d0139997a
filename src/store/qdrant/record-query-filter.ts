import type { RecordQuery } from "../store.js";
import { DERIVED_KEYS } from "./layout.js";
import { scopePrefixOf } from "./point-payload.js";

export type QFilter = { must?: QCondition[]; should?: QCondition[]; must_not?: QCondition[] };
export type QCondition = Record<string, unknown>;

const match = (key: string, value: string | number): QCondition => ({ key, match: { value } });
const empty = (key: string): QCondition => ({ is_empty: { key } });
const present = (key: string): QCondition => ({ must_not: [empty(key)] });
const range = (key: string, r: Record<string, number | string>): QCondition => ({ key, range: r });
/** Qdrant's `should: []` matches nothing: the filter of an empty id or scope list. */
const NOTHING: QCondition = { should: [] };

/** Who may read: own records, others' shared ones, the anonymous bucket; pre-isolation records (no owner) nobody. */
function authorization(q: Pick<RecordQuery, "subject" | "ownerOnly" | "allOwners">): QCondition[] {
  if (q.allOwners) return [];
  if (q.subject.anonymous) return [match("owner", "")];
  if (q.ownerOnly) return [match("owner", q.subject.owner)];
  return [present("owner"), { should: [match("owner", q.subject.owner), match("visibility", "shared")] }];
}

export function readFilter(q: Pick<RecordQuery, "subject" | "ownerOnly" | "allOwners">): QFilter {
  return { must: authorization(q) };
}

/**
 * The Qdrant filter of a RecordQuery: the same predicate as record-filter.ts
 * `matches`, key for key, over indexed payload keys only.
 */
export function queryFilter(q: RecordQuery): QFilter {
  const must: QCondition[] = authorization(q);
  const mustNot: QCondition[] = [];
  if (q.owner === null) must.push(empty("owner"));
  else if (q.owner !== undefined) must.push(match("owner", q.owner));
  if (q.scope !== undefined) must.push(match("scope", q.scope));
  if (q.scopes !== undefined) must.push(q.scopes.length === 0 ? NOTHING : { key: "scope", match: { any: [...q.scopes] } });
  if (q.scopePrefix !== undefined && q.scopePrefix !== "") {
    // Namespaced prefixes ("rule:") are the only ones the core asks for; the derived key answers them exactly.
    if (scopePrefixOf(q.scopePrefix) !== q.scopePrefix) throw new RangeError("the Qdrant store filters scope prefixes ending at their first ':' only");
    must.push(match(DERIVED_KEYS.scopePrefix, q.scopePrefix));
  }
  if (q.categories && q.categories.length > 0) must.push({ key: "category", match: { any: [...q.categories] } });
  for (const t of q.tags ?? []) must.push(match("tags", t));
  if (q.visibility === "shared") must.push(match("visibility", "shared"));
  if (q.visibility === "private") mustNot.push(match("visibility", "shared"));
  if (q.kind) must.push(match("kind", q.kind));
  if (q.citation !== undefined) must.push(match(DERIVED_KEYS.citationKeys, q.citation));
  if (q.excludeIds !== undefined && q.excludeIds.length > 0) mustNot.push({ has_id: [...q.excludeIds] });
  if (q.ids !== undefined) must.push(q.ids.length === 0 ? NOTHING : { has_id: [...q.ids] });
  if (q.createdAfter !== undefined) must.push(range("created_at", { gte: q.createdAfter }));
  if (q.createdBefore !== undefined) must.push(range("created_at", { lt: q.createdBefore }));
  if (q.onlyGated) must.push({ should: [present("archived_at"), present("superseded_by"), present("not_before"), present("not_after")] });
  if (q.gate) {
    if (!q.gate.archived) must.push(empty("archived_at"));
    if (!q.gate.superseded) must.push(empty("superseded_by"));
    if (!q.gate.scheduled) {
      must.push({ should: [empty("not_before"), range("not_before", { lte: q.now })] });
      must.push({ should: [empty("not_after"), range("not_after", { gt: q.now })] });
    }
  }
  if (q.windowState) {
    // The same three states as record-filter.ts windowStateOf; `all` is every windowed record.
    const expired = range("not_after", { lte: q.now });
    const ahead = range("not_before", { gt: q.now });
    const windowed: QCondition = { should: [present("not_before"), present("not_after")] };
    if (q.windowState === "expired") must.push(expired);
    else if (q.windowState === "scheduled") must.push({ must: [ahead], must_not: [expired] });
    else if (q.windowState === "active") must.push({ must: [windowed], must_not: [expired, ahead] });
    else must.push(windowed);
  }
  const filter: QFilter = {};
  if (must.length > 0) filter.must = must;
  if (mustNot.length > 0) filter.must_not = mustNot;
  return filter;
}
