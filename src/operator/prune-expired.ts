import type { MemoryRecord } from "../model/record.js";
import { ANONYMOUS } from "../model/subject.js";
import type { Store } from "../store/index.js";
import { deleteInBatches, isDurableKnowledge, type DeleteProgress } from "./delete-batches.js";

/**
 * `engram prune-expired`: deletes scheduled records whose not_after lapsed at
 * least the grace ago. Recall already hides them; this reclaims the space.
 * Archived records are left to `spine-review purge --class archived` (an
 * operator who archived a record chose the reversible state), and
 * discoveries and rules are never deleted.
 */

export type PruneScopeRow = { scope: string; found: number; deleted: number };
export type PruneReport = {
  dry_run: boolean;
  /** The grace, in whole seconds. */
  older_than_seconds: number;
  /** Records whose not_after is at or before this instant are lapsed (RFC3339). */
  cutoff: string;
  found: number;
  deleted: number;
  scopes: PruneScopeRow[];
};

export type PruneOptions = { olderThanS: number; apply: boolean; now: number; onProgress?: DeleteProgress };

/** Every lapsed record a prune would delete, read once at `cutoff` (unix seconds). */
export async function lapsedRecords(store: Store, cutoff: number): Promise<MemoryRecord[]> {
  const { records } = await store.list(
    { subject: ANONYMOUS, allOwners: true, gate: null, windowState: "expired", now: cutoff },
    { order: "asc", limit: Number.MAX_SAFE_INTEGER },
  );
  return records.filter((r) => !r.archived_at && !isDurableKnowledge(r));
}

export async function pruneExpired(store: Store, o: PruneOptions): Promise<PruneReport> {
  const cutoff = o.now - o.olderThanS;
  const found = await lapsedRecords(store, cutoff);
  const byScope = new Map<string, string[]>();
  for (const r of found) {
    const ids = byScope.get(r.scope) ?? [];
    ids.push(r.id);
    byScope.set(r.scope, ids);
  }
  const scopes: PruneScopeRow[] = [];
  let deleted = 0;
  let processed = 0;
  // Scope by scope, so each row says what was deleted in it (a record another writer deleted first is not counted).
  for (const scope of [...byScope.keys()].sort()) {
    const ids = byScope.get(scope)!;
    const base = processed;
    const gone = o.apply ? await deleteInBatches(store, ids, o.onProgress && ((done) => o.onProgress!(base + done, found.length))) : 0;
    processed += ids.length;
    deleted += gone;
    scopes.push({ scope, found: ids.length, deleted: gone });
  }
  return {
    dry_run: !o.apply,
    older_than_seconds: o.olderThanS,
    cutoff: new Date(cutoff * 1000).toISOString(),
    found: found.length,
    deleted,
    scopes,
  };
}
