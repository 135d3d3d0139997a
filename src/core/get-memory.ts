import type { GetArgs } from "./args.js";
import type { CoreDeps } from "./deps.js";
import { resolveReadable } from "./resolve.js";
import type { Subject } from "../model/subject.js";
import { requireString } from "./validate.js";
import { pointView, type MemoryView } from "./view.js";

/**
 * Not recall-gated: scheduled, expired, superseded and archived records are
 * all fetchable. The view may be frozen (see pointView): lanes copy before
 * changing it.
 */
export async function getMemory(deps: CoreDeps, subject: Subject, a: GetArgs): Promise<MemoryView> {
  const input = requireString("id", a.id);
  const rec = await resolveReadable(deps, subject, input);
  const view = pointView(rec);
  // A get is a strong usage signal; it never fails the read, and it costs
  // the read no write: the store coalesces counts and writes them in batches.
  try {
    deps.store.noteAccess(rec.id, deps.now().toISOString());
  } catch (err) {
    deps.log.warn("access count not recorded", { error: String(err) });
  }
  return view;
}
