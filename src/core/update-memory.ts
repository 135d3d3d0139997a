import { ArgError, argError, ruleImmutable, staleSummary } from "../argerror/index.js";
import { embeddingText, identityKey } from "../embed/embedder.js";
import type { UpdateArgs } from "./args.js";
import { withConflictRetry } from "./conditional-write.js";
import type { CoreDeps } from "./deps.js";
import { LANE_POLICY, type Lane } from "./limits.js";
import type { MemoryRecord } from "../model/record.js";
import { resolveOwned } from "./resolve.js";
import { checkRuleSummary } from "./rule-checks.js";
import type { Subject } from "../model/subject.js";
import { checkContentBytes, checkSummary, checkTags, requireString, uniqueTags } from "./validate.js";
import type { WriteResult } from "./write-record.js";
import { softWords } from "./rank-soft.js";
import { wordVectorsOf } from "./word-vectors.js";
import { embedDocuments } from "./embed-traced.js";

export const UPDATE_PATHS = ["content", "shared", "tags", "summary"] as const;
const MASK_SENTENCE = `update_mask must contain at least one path, each of: ${UPDATE_PATHS.join(", ")}`;

/** The rejection for an update that names no field; the CLI raises the same one before dialing. */
export function updateMaskRequired() {
  return argError("update_mask", "required", MASK_SENTENCE);
}

/** Connect names present fields with a mask; absent paths stay unchanged. */
function applyMask(a: UpdateArgs): UpdateArgs {
  if (a.update_mask === undefined) return a;
  const paths = a.update_mask;
  if (paths.length === 0) throw updateMaskRequired();
  if (!paths.every((p) => (UPDATE_PATHS as readonly string[]).includes(p))) throw argError("update_mask", "enum", MASK_SENTENCE);
  const out: UpdateArgs = { id: a.id };
  if (paths.includes("content")) out.content = a.content ?? "";
  if (paths.includes("shared")) out.shared = a.shared ?? false;
  if (paths.includes("tags")) out.tags = a.tags ?? [];
  if (paths.includes("summary")) out.summary = a.summary ?? "";
  return out;
}

function sameTags(x: readonly string[], y: readonly string[]): boolean {
  return x.length === y.length && x.every((t, i) => t === y[i]);
}

/**
 * Order: mask, summary bound, content presence (MCP), id, ownership, the
 * rule guard, caps only for what changed (legacy over-cap records can still
 * be re-shared), then the stale-summary guard, all before any embedding.
 */
export async function updateMemory(deps: CoreDeps, subject: Subject, raw: UpdateArgs, lane: Lane): Promise<WriteResult> {
  const a = applyMask(raw);
  await checkUpdateSummary(deps, subject, a);
  if (LANE_POLICY[lane].updateRequiresContent) requireString("content", a.content);
  else if (a.content !== undefined) requireString("content", a.content);
  const input = requireString("id", a.id);
  // The vector of the text embedded by an earlier attempt: a retry after a
  // lost race re-validates the record as it now is, but embeds again only
  // if the text to embed changed.
  let embedded: { text: string; vector: Float32Array } | undefined;
  return withConflictRetry([input], async () => {
    const rec = await resolveOwned(deps, subject, input);
    const next = nextRecord(deps, a, rec);
    if (a.content !== undefined || a.tags !== undefined) {
      const text = embeddingText(next.content, next.tags);
      if (embedded?.text !== text) {
        embedded = { text, vector: (await embedDocuments(deps.embedder, [text]))[0]! };
        wordVectorsOf(deps.embedder).offer(softWords(next));
      }
      next.embedder_identity = identityKey(deps.embedder.identity);
      await deps.store.replace(next, embedded.vector);
    } else {
      await deps.store.replace(next);
    }
    return { id: next.id, short_id: next.short_id };
  });
}

/**
 * The summary bound comes before any other check, as in the reference. A
 * summary on several lines is refused there too, but a rule answers with
 * its own sentence (a rule's summary is its index entry), so the caller's
 * own record is looked at first. Anything but an owned rule keeps the
 * generic sentence: the answer for an id that is missing or someone else's
 * must not differ from the answer for a plain record, and a lookup fault
 * must not replace a rejection the caller can act on.
 */
async function checkUpdateSummary(deps: CoreDeps, subject: Subject, a: UpdateArgs): Promise<void> {
  try {
    checkSummary(a.summary, deps.limits);
  } catch (err) {
    if (err instanceof ArgError && err.hint === "format" && (await isOwnedRule(deps, subject, a.id))) checkRuleSummary(a.summary, deps.limits);
    throw err;
  }
}

async function isOwnedRule(deps: CoreDeps, subject: Subject, id: string | undefined): Promise<boolean> {
  if (typeof id !== "string" || id === "") return false;
  try {
    return (await resolveOwned(deps, subject, id)).category === "rule";
  } catch {
    return false;
  }
}

/** The rule guard, the caps of what changed and the stale-summary guard against `rec` as read; then the record to write. */
function nextRecord(deps: CoreDeps, a: UpdateArgs, rec: MemoryRecord): MemoryRecord {
  if (rec.category === "rule") {
    if (a.summary !== undefined) checkRuleSummary(a.summary, deps.limits);
    if (a.shared === false) throw ruleImmutable("private");
  }
  const contentChanged = a.content !== undefined && a.content !== rec.content;
  const tags = uniqueTags(a.tags);
  const tagsChanged = tags !== undefined && !sameTags(tags, rec.tags);
  if (contentChanged) checkContentBytes(a.content!, rec.category === "rule" ? deps.limits.maxRuleContentBytes : deps.limits.maxContentBytes);
  if (tagsChanged) checkTags(a.tags, deps.limits);

  const next: MemoryRecord = { ...rec };
  if (a.summary !== undefined) {
    next.summary = a.summary;
    next.summary_source = a.summary === "" ? "" : "client";
  } else if (contentChanged && rec.summary) {
    if (rec.summary_source === "client") throw staleSummary();
    if (rec.summary_source === "auto") {
      next.summary = "";
      next.summary_source = "";
      next.summary_model = "";
    }
  }
  if (a.content !== undefined) next.content = a.content;
  if (tags !== undefined) next.tags = tags;
  if (a.shared !== undefined) next.visibility = a.shared ? "shared" : "";
  next.access_count = (rec.access_count ?? 0) + 1;
  next.last_accessed_at = deps.now().toISOString();
  return next;
}
