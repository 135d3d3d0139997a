import { argError, ruleImmutable } from "../argerror/index.js";
import type { SetVisibilityArgs } from "./args.js";
import { withConflictRetry } from "./conditional-write.js";
import type { CoreDeps } from "./deps.js";
import { LANE_POLICY, type Lane } from "./limits.js";
import { resolveOwned } from "./resolve.js";
import type { Subject } from "../model/subject.js";
import { requireString } from "./validate.js";
import type { WriteResult } from "./write-record.js";

/**
 * `shared` must be explicit: false is a real answer, absent is not. The
 * field is named as the caller's lane names it (MCP `shared`, Connect
 * `visibility`).
 */
export async function setVisibility(deps: CoreDeps, subject: Subject, a: SetVisibilityArgs, lane: Lane): Promise<WriteResult> {
  const input = requireString("id", a.id);
  if (a.shared === undefined) {
    const field = LANE_POLICY[lane].visibilityField;
    throw argError(field, "required", `${field} is required`);
  }
  const shared = a.shared;
  return withConflictRetry([input], async () => {
    const rec = await resolveOwned(deps, subject, input);
    if (rec.category === "rule") throw ruleImmutable("visibility");
    await deps.store.replace({ ...rec, visibility: shared ? "shared" : "" });
    return { id: rec.id, short_id: rec.short_id };
  });
}
