import type { DeleteAllArgs } from "./args.js";
import { nowSeconds, type CoreDeps } from "./deps.js";
import type { Subject } from "../model/subject.js";
import { requireString } from "./validate.js";

export type DeleteAllResult = { deleted: number; would_delete?: number };

/**
 * Clears the caller's own records in one scope; scope is the only guard
 * before a teardown. A dry run counts the same set (every lifecycle state,
 * the caller's own records only) through the store, so a preview on any
 * lane is exact rather than reconstructed by the client from listings.
 */
export async function deleteAll(deps: CoreDeps, subject: Subject, a: DeleteAllArgs): Promise<DeleteAllResult> {
  const scope = requireString("scope", a.scope);
  if (a.dry_run === true) {
    return { deleted: 0, would_delete: await deps.store.count({ subject, scope, ownerOnly: true, gate: null, now: nowSeconds(deps) }) };
  }
  return { deleted: await deps.store.deleteOwnedInScope(scope, subject) };
}
