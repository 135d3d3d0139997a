import { argError, ArgError, ruleError } from "../argerror/index.js";
import type { CitationArg, RecallFilterArgs, StoreArgs } from "./args.js";
import { byteLength } from "./bytes.js";
import type { Limits } from "./limits.js";

export const CITATION_KINDS = ["file", "commit", "url", "repo"] as const;

export function requireString(field: string, value: string | undefined, detail = `${field} is required`): string {
  if (value === undefined || value.trim() === "") throw argError(field, "required", detail);
  return value;
}

/** Zero means "use the default"; above the maximum is rejected, never clamped. */
export function checkCount(field: string, value: number | undefined, limits: Limits): number {
  const n = value ?? 0;
  if (!Number.isInteger(n) || n < 0) throw argError(field, "format", `${field} must be a non-negative integer`);
  if (n > limits.maxRecall) {
    throw argError(field, "out_of_range", `${field} exceeds the maximum of ${limits.maxRecall}`, { max: limits.maxRecall });
  }
  return n;
}

/**
 * The summary bound for memory writes. It runs before content presence so an
 * oversized summary is never reported as missing content.
 */
export function checkSummary(summary: string | undefined, limits: Limits): void {
  if (summary === undefined || limits.maxSummaryBytes === 0) return;
  const n = byteLength(summary);
  if (n > limits.maxSummaryBytes) {
    throw argError("summary", "too_long", `summary must be at most ${limits.maxSummaryBytes} bytes (got ${n})`, {
      max: limits.maxSummaryBytes,
      got: n,
    });
  }
}

export function checkContentBytes(content: string, max: number): void {
  const n = byteLength(content);
  if (n > max) throw argError("content", "too_long", `content too large: ${n} bytes (max ${max})`, { max, got: n });
}

export function checkTags(tags: readonly string[] | undefined, limits: Limits): void {
  if (!tags) return;
  if (tags.length > limits.maxTags) {
    throw argError("tags", "too_many", `too many tags: ${tags.length} (max ${limits.maxTags})`, {
      max: limits.maxTags,
      got: tags.length,
    });
  }
  tags.forEach((t, i) => {
    const n = byteLength(t);
    if (n > limits.maxTagBytes) {
      throw argError("tags", "too_long", `tag ${i} too large: ${n} bytes (max ${limits.maxTagBytes})`, {
        index: i,
        max: limits.maxTagBytes,
        got: n,
      });
    }
  });
}

/** Citations: count first, then each entry in order (kind, ref, excerpt). */
export function checkCitations(citations: readonly CitationArg[] | undefined, limits: Limits, min = 0): void {
  const list = citations ?? [];
  if (list.length < min) throw argError("citations", "required", "at least one citation is required");
  if (list.length > limits.maxCitations) {
    throw argError("citations", "too_many", `too many citations: ${list.length} (max ${limits.maxCitations})`, {
      max: limits.maxCitations,
      got: list.length,
    });
  }
  list.forEach((c, i) => {
    if (!CITATION_KINDS.includes((c.kind ?? "") as (typeof CITATION_KINDS)[number])) {
      throw argError("citations[i].kind", "enum", `citation ${i}: kind must be one of file|commit|url|repo`, { index: i });
    }
    if (!c.ref || c.ref.trim() === "") {
      throw argError("citations[i].ref", "required", `citation ${i}: ref is required (the source anchor)`, { index: i });
    }
    const n = byteLength(c.excerpt ?? "");
    if (n > limits.maxExcerptBytes) {
      throw argError("citations[i].excerpt", "too_long", `citation ${i}: excerpt too large: ${n} bytes (max ${limits.maxExcerptBytes})`, {
        index: i,
        max: limits.maxExcerptBytes,
        got: n,
      });
    }
  });
}

export function checkIdempotencyKey(key: string | undefined, limits: Limits): void {
  if (!key) return;
  const n = byteLength(key);
  if (n > limits.maxIdempotencyKeyBytes) {
    throw argError("idempotency_key", "too_long", `idempotency_key too large: ${n} bytes (max ${limits.maxIdempotencyKeyBytes})`, {
      max: limits.maxIdempotencyKeyBytes,
      got: n,
    });
  }
}

/**
 * The write checks shared by store, schedule and supersede, in the contract's
 * order: summary bound, content presence, content bytes, scope, source,
 * category, tag count, tag bytes, then citations and the idempotency key.
 */
export function validateStoreArgs(a: StoreArgs, limits: Limits): void {
  checkSummary(a.summary, limits);
  const content = requireString("content", a.content);
  checkContentBytes(content, limits.maxContentBytes);
  requireString("scope", a.scope);
  requireString("source", a.source);
  requireString("category", a.category);
  checkTags(a.tags, limits);
  checkCitations(a.citations, limits);
  checkIdempotencyKey(a.idempotency_key, limits);
}

/** RFC3339 with a zone; returns the instant as fixed-width ISO text for comparisons. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function parseRfc3339(field: string, value: string | undefined): Date | undefined {
  if (value === undefined || value === "") return undefined;
  const d = RFC3339.test(value) ? new Date(value) : undefined;
  if (!d || Number.isNaN(d.getTime())) throw argError(field, "format", `${field} must be RFC3339`);
  return d;
}

/**
 * scope is required unless cross_spine; with cross_spine any scope is
 * ignored. Returns undefined for "every readable scope" — the core is the
 * only place allowed to produce that.
 */
export function effectiveScope(a: Pick<RecallFilterArgs, "scope" | "cross_spine">): string | undefined {
  if (a.cross_spine) return undefined;
  if (!a.scope || a.scope.trim() === "") throw ruleError("scope-required-unless-cross-spine");
  return a.scope;
}

export function isArgError(e: unknown): e is ArgError {
  return e instanceof ArgError;
}
