import { argError } from "../argerror/index.js";
import type { StoreDiscoveryArgs } from "./args.js";
import type { CoreDeps } from "./deps.js";
import { newRecord } from "./new-record.js";
import { ownedOrAbsent } from "./replace-target.js";
import type { Subject } from "../model/subject.js";
import { checkCitations, checkContentBytes, checkSummary, checkTags, requireString } from "./validate.js";
import { embedAndPut, type WriteResult } from "./write-record.js";

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

  const target = a.id ? await ownedOrAbsent(deps, subject, a.id) : undefined;
  const rec = newRecord({ ...a, source: "agent-inferred", category: "discovery" }, subject, deps.now(), { kind: a.kind! });
  if (target) {
    rec.id = target.id;
    if (target.existing) {
      rec.short_id = target.existing.short_id;
      rec.created_at = target.existing.created_at;
      rec.visibility = target.existing.visibility;
    }
  }
  return embedAndPut(deps, rec);
}
