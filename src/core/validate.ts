import { argError, ArgError, exceedsMaximum, ruleError } from "../argerror/index.js";
import type { CitationArg, RecallFilterArgs, StoreArgs } from "./args.js";
import { byteLength } from "./bytes.js";
import type { Limits } from "./limits.js";
import { parseRfc3339Instant } from "./rfc3339.js";

export const CITATION_KINDS = ["file", "commit", "url", "repo"] as const;

/** Who said it: the user, or the agent concluding it. */
export const MEMORY_SOURCES = ["user-said", "agent-inferred"] as const;

/** The categories store, schedule and supersede write; rule and discovery have verbs of their own. */
export const MEMORY_CATEGORIES = ["decision", "preference", "convention", "gotcha"] as const;

/** Categories and scope prefixes only store_rule and store_discovery write. */
export const RESERVED_WRITERS = { rule: "store_rule", discovery: "store_discovery" } as const;

/** Every category a stored record can carry: the memory categories and those of the reserved writers. */
export const RECORD_CATEGORIES: readonly string[] = [...MEMORY_CATEGORIES, ...Object.keys(RESERVED_WRITERS)];

export function requireString(field: string, value: string | undefined, detail = `${field} is required`): string {
  if (value === undefined || value.trim() === "") throw argError(field, "required", detail);
  return value;
}

/**
 * Zero means "use the default"; above the maximum is rejected, never clamped.
 * Infinity is what JSON makes of an integer literal too long for a double,
 * so it is above the maximum like any other too-large integer.
 */
export function checkCount(field: string, value: number | undefined, limits: Limits): number {
  const n = value ?? 0;
  const whole = Number.isInteger(n) || n === Number.POSITIVE_INFINITY;
  if (!whole || n < 0) throw argError(field, "format", `${field} must be a non-negative integer`);
  if (n > limits.maxRecall) {
    throw exceedsMaximum(field, limits.maxRecall);
  }
  return n;
}

/** A one-line field holds no line break of any kind. */
export function isSingleLine(s: string): boolean {
  return !/[\r\n\u2028\u2029]/.test(s);
}

/**
 * The summary checks for memory and discovery writes: the bound, then one
 * line. They run before content presence so an oversized summary is never
 * reported as missing content.
 */
export function checkSummary(summary: string | undefined, limits: Limits): void {
  if (summary === undefined) return;
  const n = byteLength(summary);
  if (limits.maxSummaryBytes !== 0 && n > limits.maxSummaryBytes) {
    throw argError("summary", "too_long", `summary must be at most ${limits.maxSummaryBytes} bytes (got ${n})`, {
      max: limits.maxSummaryBytes,
      got: n,
    });
  }
  if (!isSingleLine(summary)) throw argError("summary", "format", "summary must be a single line (no newlines)");
}

/** A recall query: present and bounded, checked before anything is embedded. */
export function checkQuery(query: string | undefined, limits: Limits): string {
  const q = requireString("query", query);
  const n = byteLength(q);
  if (n > limits.maxQueryBytes) {
    throw argError("query", "too_long", `query too large: ${n} bytes (max ${limits.maxQueryBytes})`, { max: limits.maxQueryBytes, got: n });
  }
  return q;
}

function oneOf(field: string, value: string, accepted: readonly string[], note = ""): void {
  if (!accepted.includes(value)) throw argError(field, "enum", `${field} must be one of ${accepted.join("|")}${note}`);
}

/** Where a reserved category or scope prefix names its writer, or undefined. */
function reservedWriter(value: string, asPrefix: boolean): { name: string; verb: string } | undefined {
  for (const [name, verb] of Object.entries(RESERVED_WRITERS)) {
    if (asPrefix ? value.startsWith(`${name}:`) : value === name) return { name, verb };
  }
  return undefined;
}

/** Scopes under rule: and discovery: hold only what store_rule and store_discovery write. */
export function checkUnreservedScope(scope: string): void {
  const r = reservedWriter(scope, true);
  if (r) throw argError("scope", "prefix", `scopes under ${r.name}: are written only by ${r.verb}`);
}

/**
 * The category of a memory write. `verb` is the operation checking it: a
 * schedule of a discovery is left to the window checks, which refuse it with
 * the reference's own rule sentence, in the reference's order.
 */
export function checkCategory(category: string, verb: "store" | "schedule" | "supersede"): void {
  const r = reservedWriter(category, false);
  if (r?.name === "discovery" && verb === "schedule") return;
  oneOf("category", category, MEMORY_CATEGORIES, r ? ` (${r.name} records are written only by ${r.verb})` : "");
}

/** Tags in the order sent, each kept once (the first occurrence wins). */
export function uniqueTags(tags: readonly string[] | undefined): string[] | undefined {
  return tags === undefined ? undefined : [...new Set(tags)];
}

export function checkContentBytes(content: string, max: number): void {
  const n = byteLength(content);
  if (n > max) throw argError("content", "too_long", `content too large: ${n} bytes (max ${max})`, { max, got: n });
}

/**
 * Tags of a write. The count is of distinct tags, since duplicates are
 * dropped rather than stored; blanks and sizes are checked per entry as sent.
 */
export function checkTags(tags: readonly string[] | undefined, limits: Limits): void {
  if (!tags) return;
  const distinct = new Set(tags).size;
  if (distinct > limits.maxTags) {
    throw argError("tags", "too_many", `too many tags: ${distinct} (max ${limits.maxTags})`, {
      max: limits.maxTags,
      got: distinct,
    });
  }
  tags.forEach((t, i) => {
    if (t.trim() === "") throw argError("tags", "required", "tags entries must not be blank", { index: i });
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
 * order: summary, content presence, content bytes, scope (and its reserved
 * prefixes), source, category, tag count, tag entries, then citations and
 * the idempotency key.
 */
export function validateStoreArgs(a: StoreArgs, limits: Limits, verb: "store" | "schedule" | "supersede"): void {
  checkSummary(a.summary, limits);
  const content = requireString("content", a.content);
  checkContentBytes(content, limits.maxContentBytes);
  checkUnreservedScope(requireString("scope", a.scope));
  oneOf("source", requireString("source", a.source), MEMORY_SOURCES);
  checkCategory(requireString("category", a.category), verb);
  checkTags(a.tags, limits);
  checkCitations(a.citations, limits);
  checkIdempotencyKey(a.idempotency_key, limits);
}

/** An RFC3339 instant (see rfc3339.ts) to the millisecond; unset when empty. */
export function parseRfc3339(field: string, value: string | undefined): Date | undefined {
  return parseRfc3339Instant(field, value)?.date;
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
