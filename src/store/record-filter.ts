import type { RecordQuery } from "./store.js";

/** The per-record facts every filter needs, kept in memory by the embedded store. */
export type RecordAttrs = {
  rid: number;
  id: string;
  owner: string | null;
  scope: string;
  visibility: string;
  category: string;
  kind: string;
  createdAt: string;
  notBefore: number | null;
  notAfter: number | null;
  superseded: boolean;
  archived: boolean;
  tags: readonly string[];
  /** `kind\u0000ref` of every citation, for citation-edge lookups. */
  citationKeys: readonly string[];
};

export function citationKey(kind: string, ref: string): string {
  return `${kind}\u0000${ref}`;
}

/**
 * Read authorization: owner match or shared for an authenticated caller;
 * an anonymous caller reads only the anonymous bucket. Records without an
 * owner key (pre-isolation) match nobody.
 */
export function readable(a: RecordAttrs, q: Pick<RecordQuery, "subject" | "ownerOnly" | "allOwners">): boolean {
  if (q.allOwners) return true;
  if (a.owner === null) return false;
  if (q.subject.anonymous) return a.owner === "";
  if (a.owner === q.subject.owner) return true;
  return !q.ownerOnly && a.visibility === "shared";
}

/** Window states, in the canonical order the CLI prints them. */
export function isExpired(a: Pick<RecordAttrs, "notAfter">, now: number): boolean {
  return a.notAfter !== null && a.notAfter <= now;
}

export function isScheduled(a: Pick<RecordAttrs, "notBefore" | "notAfter">, now: number): boolean {
  return !isExpired(a, now) && a.notBefore !== null && a.notBefore > now;
}

/**
 * Where a windowed record stands now: before its window, inside it, or past
 * it; undefined for a record with no window at all. Inside is a state of its
 * own so that a fact about to expire can be listed before it does.
 */
export function windowStateOf(a: Pick<RecordAttrs, "notBefore" | "notAfter">, now: number): "scheduled" | "active" | "expired" | undefined {
  if (a.notBefore === null && a.notAfter === null) return undefined;
  if (isExpired(a, now)) return "expired";
  if (isScheduled(a, now)) return "scheduled";
  return "active";
}

/** The single predicate behind list, count, search and tag counts. */
export function matches(a: RecordAttrs, q: RecordQuery): boolean {
  if (!readable(a, q)) return false;
  if (q.owner !== undefined && a.owner !== q.owner) return false;
  if (q.scope !== undefined && a.scope !== q.scope) return false;
  if (q.scopes !== undefined && !q.scopes.includes(a.scope)) return false;
  if (q.scopePrefix !== undefined && !a.scope.startsWith(q.scopePrefix)) return false;
  if (q.categories && q.categories.length > 0 && !q.categories.includes(a.category)) return false;
  if (q.tags && q.tags.length > 0 && !q.tags.every((t) => a.tags.includes(t))) return false;
  if (q.visibility === "shared" && a.visibility !== "shared") return false;
  if (q.visibility === "private" && a.visibility === "shared") return false;
  if (q.kind && a.kind !== q.kind) return false;
  if (q.citation !== undefined && !a.citationKeys.includes(q.citation)) return false;
  if (q.excludeIds !== undefined && q.excludeIds.includes(a.id)) return false;
  if (q.ids !== undefined && !q.ids.includes(a.id)) return false;
  if (q.createdAfter !== undefined && a.createdAt < q.createdAfter) return false;
  if (q.createdBefore !== undefined && a.createdAt >= q.createdBefore) return false;
  if (q.gate) {
    if (!q.gate.archived && a.archived) return false;
    if (!q.gate.superseded && a.superseded) return false;
    if (!q.gate.scheduled) {
      if (a.notBefore !== null && a.notBefore > q.now) return false;
      if (a.notAfter !== null && a.notAfter <= q.now) return false;
    }
  }
  if (q.windowState) {
    const state = windowStateOf(a, q.now);
    if (state === undefined) return false;
    if (q.windowState !== "all" && q.windowState !== state) return false;
  }
  return true;
}
