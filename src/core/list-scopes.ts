import type { CoreDeps } from "./deps.js";
import type { Subject } from "../model/subject.js";

/** Authorization only (no recall gate): every scope the caller may read, with counts. */
export async function listScopes(deps: CoreDeps, subject: Subject) {
  return deps.store.scopeCounts(subject);
}
