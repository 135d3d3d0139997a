import { argError } from "../argerror/index.js";
import type { StoreDiscoveryArgs } from "./args.js";
import { identityKey } from "../embed/embedder.js";
import { withConflictRetry } from "./conditional-write.js";
import type { CoreDeps } from "./deps.js";
import { newRecord } from "./new-record.js";
import { keepState, ownedOrAbsent } from "./replace-target.js";
import type { Subject } from "../model/subject.js";
import { checkCitations, checkContentBytes, checkSummary, checkTags, requireString } from "./validate.js";
import { createRecord, embedRecord, type WriteResult } from "./write-record.js";

export const DISCOVERY_PREFIX = "discovery:";
export const DISCOVERY_KINDS = ["map", "fact"] as const;

export function checkDiscoveryKind(kind: string | undefined, required: boolean): void {
  if (!required && (kind ?? "") === "") return;
  if (!(DISCOVERY_KINDS as readonly string[]).includes(kind ?? "")) {
    throw argError("kind", "enum", 'kind must be "map" or "fact"');
  }
}

/**
 * A discovery: what an agent learned about a code base, anchored by one to
 * fifty citations. The server sets source and category; discoveries are
 * never auto-summarized and take no idempotency key (replace by id instead).
 */
export async function storeDiscovery(deps: CoreDeps, subject: Subject, a: StoreDiscoveryArgs): Promise<WriteResult> {
  checkSummary(a.summary, deps.limits);
  const content = requireString("content", a.content);
  checkContentBytes(content, deps.limits.maxDiscoveryContentBytes);
  const scope = requireString("scope", a.scope);
  if (!scope.startsWith(DISCOVERY_PREFIX) || scope.length === DISCOVERY_PREFIX.length) {
    throw argError("scope", "prefix", 'scope must be a discovery scope (start with "discovery:")');
  }
  checkDiscoveryKind(a.kind, true);
  checkTags(a.tags, deps.limits);
  checkCitations(a.citations, deps.limits, 1);

  // Replacing in place by id is a conditional write: a lost race reads the
  // target again (it may have been created, changed or deleted meanwhile).
  // The text to embed comes from the arguments alone, so it is embedded once.
  let vector: Float32Array | undefined;
  return withConflictRetry([a.id ?? ""], async () => {
    const target = a.id ? await ownedOrAbsent(deps, subject, a.id, "discovery") : undefined;
    const rec = newRecord({ ...a, source: "agent-inferred", category: "discovery" }, subject, deps.now(), { kind: a.kind! });
    vector ??= await embedRecord(deps, rec);
    rec.embedder_identity = identityKey(deps.embedder.identity);
    if (!target) return createRecord(deps, rec, vector);
    rec.id = target.id;
    if (!target.existing) return createRecord(deps, rec, vector);
    keepState(rec, target.existing);
    rec.visibility = target.existing.visibility;
    await deps.store.replace(rec, vector);
    return { id: rec.id, short_id: rec.short_id };
  });
}
