import { identityKey } from "../embed/embedder.js";
import type { Subject } from "../model/subject.js";
import type { StoreRuleArgs } from "./args.js";
import { withConflictRetry } from "./conditional-write.js";
import type { CoreDeps } from "./deps.js";
import { newRecord } from "./new-record.js";
import { keepState, ownedOrAbsent } from "./replace-target.js";
import { checkRuleScope, checkRuleSummary } from "./rule-checks.js";
import { checkContentBytes, checkTags, requireString } from "./validate.js";
import { createRecord, embedRecord, type WriteResult } from "./write-record.js";

/**
 * A rule is a standing instruction: always shared, summarized by its author,
 * never superseded or made private; deleting it is the only retirement.
 */
export async function storeRule(deps: CoreDeps, subject: Subject, a: StoreRuleArgs): Promise<WriteResult> {
  const content = requireString("content", a.content);
  checkContentBytes(content, deps.limits.maxRuleContentBytes);
  checkRuleScope(requireString("scope", a.scope));
  checkRuleSummary(a.summary, deps.limits);
  checkTags(a.tags, deps.limits);

  // An id that names the caller's own record replaces it in place, as a
  // discovery's id does: a create would find the id taken. The replace is
  // conditional on the revision read, so a lost race reads the target again
  // (changed, deleted or just created); the text is embedded once.
  let vector: Float32Array | undefined;
  return withConflictRetry([a.id ?? ""], async () => {
    const target = a.id ? await ownedOrAbsent(deps, subject, a.id, "rule") : undefined;
    const rec = newRecord({ ...a, source: "user-said", category: "rule" }, subject, deps.now(), {
      visibility: "shared",
      summary_source: "client",
    });
    vector ??= await embedRecord(deps, rec);
    rec.embedder_identity = identityKey(deps.embedder.identity);
    if (target) rec.id = target.id;
    if (!target?.existing) return createRecord(deps, rec, vector);
    keepState(rec, target.existing);
    await deps.store.replace(rec, vector);
    return { id: rec.id, short_id: rec.short_id };
  });
}
