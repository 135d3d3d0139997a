import type { Store } from "../store/index.js";

/** Records a lifecycle sweep deletes per call of the store (one SQLite transaction; Qdrant pages it further). */
export const DELETE_BATCH = 2048;

/** Called after each committed batch: how many are deleted so far, of how many. It may throw to stop between batches. */
export type DeleteProgress = (done: number, total: number) => void;

/**
 * Deletes `ids` a batch at a time, reporting after each commit; returns how
 * many existed when their batch was deleted. Stopping in `onProgress`
 * leaves every committed batch deleted and nothing half-done.
 */
export async function deleteInBatches(store: Store, ids: readonly string[], onProgress?: DeleteProgress, batch = DELETE_BATCH): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < ids.length; i += batch) {
    deleted += await store.deleteMany(ids.slice(i, i + batch));
    onProgress?.(Math.min(ids.length, i + batch), ids.length);
  }
  return deleted;
}

/** Discoveries and rules are durable knowledge: no lifecycle sweep ever deletes one. */
export function isDurableKnowledge(r: { category: string; scope: string }): boolean {
  return r.category === "discovery" || r.category === "rule" || r.scope.startsWith("discovery:") || r.scope.startsWith("rule:");
}
