/**
 * Caps and lane defaults. The core is the only reader: lanes never hold a
 * number of their own.
 */
export type Limits = {
  maxSummaryBytes: number;
  maxContentBytes: number;
  maxTags: number;
  maxTagBytes: number;
  maxCitations: number;
  maxExcerptBytes: number;
  maxIdempotencyKeyBytes: number;
  /** Bytes of a recall query; checked before anything is embedded. */
  maxQueryBytes: number;
  maxRecall: number;
  maxTargetBytes: number;
  /** Bytes of one id input (UUID or short id), so a not-found sentinel never repeats more than this. */
  maxIdBytes: number;
  maxArchiveIdBytes: number;
  maxDiscoveryContentBytes: number;
  maxRuleContentBytes: number;
  maxRuleSummaryBytes: number;
  summaryMaxChars: number;
  relatedDefaultK: number;
  listTagsDefaultLimit: number;
  /** Rules in one scope above which list_rules adds a curation advisory. */
  ruleAdvisoryThreshold: number;
  /** Serialized bytes one read may return before it fails as response_too_large. */
  responseBudgetBytes: number;
  /** Records in one batch write; more is refused as a whole (the body limit applies as well). */
  maxBatchRecords: number;
};

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxSummaryBytes: 512,
  maxContentBytes: 64 * 1024,
  maxTags: 128,
  maxTagBytes: 128,
  maxCitations: 50,
  maxExcerptBytes: 16 * 1024,
  maxIdempotencyKeyBytes: 512,
  maxQueryBytes: 8192,
  maxRecall: 1000,
  maxTargetBytes: 256,
  maxIdBytes: 256,
  maxArchiveIdBytes: 256,
  maxDiscoveryContentBytes: 64 * 1024,
  maxRuleContentBytes: 8 * 1024,
  maxRuleSummaryBytes: 256,
  summaryMaxChars: 280,
  relatedDefaultK: 8,
  listTagsDefaultLimit: 100,
  ruleAdvisoryThreshold: 50,
  responseBudgetBytes: 4 * 1024 * 1024,
  maxBatchRecords: 256,
});

export type Lane = "connect" | "mcp" | "cli";

/**
 * What differs between lanes, decided here so adapters stay thin. Connect
 * lists default to offset paging over the whole maximum (the UI pages by
 * offset); MCP is always cursor paging with small pages for agents.
 */
export const LANE_POLICY: Record<
  Lane,
  {
    searchK: number;
    discoveryK: number;
    listLimitCursor: number;
    alwaysCursor: boolean;
    updateRequiresContent: boolean;
    visibilityField: "visibility" | "shared";
    cursorField: "page_token" | "cursor";
    /** Connect's SearchDiscoveries reads an empty scope as "every discovery scope". */
    discoveryEmptyScopeSpans: boolean;
  }
> = {
  connect: { searchK: 20, discoveryK: 20, listLimitCursor: 20, alwaysCursor: false, updateRequiresContent: false, visibilityField: "visibility", cursorField: "page_token", discoveryEmptyScopeSpans: true },
  cli: { searchK: 20, discoveryK: 20, listLimitCursor: 20, alwaysCursor: false, updateRequiresContent: false, visibilityField: "visibility", cursorField: "page_token", discoveryEmptyScopeSpans: true },
  mcp: { searchK: 8, discoveryK: 8, listLimitCursor: 20, alwaysCursor: true, updateRequiresContent: true, visibilityField: "shared", cursorField: "cursor", discoveryEmptyScopeSpans: false },
};

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, allowZero = false): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  // Digits only: Number() would also read "1e3", "0x10" or "1.0" as a cap.
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || (!allowZero && n === 0)) {
    throw new Error(`${name} must be a ${allowZero ? "non-negative" : "positive"} integer`);
  }
  return n;
}

/** Reads the configurable caps; a malformed value fails startup, never falls back silently. */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): Limits {
  return Object.freeze({
    ...DEFAULT_LIMITS,
    maxSummaryBytes: positiveInt(env, "ENGRAM_MEMORY_MAX_SUMMARY_BYTES", DEFAULT_LIMITS.maxSummaryBytes, true),
    maxContentBytes: positiveInt(env, "ENGRAM_MEMORY_MAX_CONTENT_BYTES", DEFAULT_LIMITS.maxContentBytes),
    maxTags: positiveInt(env, "ENGRAM_MEMORY_MAX_TAGS", DEFAULT_LIMITS.maxTags),
    maxTagBytes: positiveInt(env, "ENGRAM_MEMORY_MAX_TAG_BYTES", DEFAULT_LIMITS.maxTagBytes),
    maxQueryBytes: positiveInt(env, "ENGRAM_MEMORY_MAX_QUERY_BYTES", DEFAULT_LIMITS.maxQueryBytes),
    summaryMaxChars: positiveInt(env, "ENGRAM_SUMMARY_MAX_CHARS", DEFAULT_LIMITS.summaryMaxChars),
    responseBudgetBytes: positiveInt(env, "ENGRAM_RESPONSE_BUDGET_BYTES", DEFAULT_LIMITS.responseBudgetBytes),
  });
}
