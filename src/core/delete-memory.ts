import { notFound } from "../argerror/index.js";
import type { DeleteArgs } from "./args.js";
import type { CoreDeps } from "./deps.js";
import { resolveOwned } from "./resolve.js";
import type { Subject } from "../model/subject.js";
import { requireString } from "./validate.js";

/** Owner only; a record the caller cannot write is "not found", same as a missing one. */
export async function deleteMemory(deps: CoreDeps, subject: Subject, a: DeleteArgs): Promise<void> {
  const input = requireString("id", a.id);
  const rec = await resolveOwned(deps, subject, input);
  if (!(await deps.store.delete(rec.id))) throw notFound([input]);
}
