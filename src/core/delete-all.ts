import type { DeleteAllArgs } from "./args.js";
import type { CoreDeps } from "./deps.js";
import type { Subject } from "../model/subject.js";
import { requireString } from "./validate.js";

/** Clears the caller's own records in one scope; scope is the only guard before a teardown. */
export async function deleteAll(deps: CoreDeps, subject: Subject, a: DeleteAllArgs): Promise<{ deleted: number }> {
  const scope = requireString("scope", a.scope);
  return { deleted: await deps.store.deleteOwnedInScope(scope, subject) };
}
