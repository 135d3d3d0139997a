import { RULES } from "../argerror/index.js";

/**
 * The flags the recall verbs share, by request field. Where a verb refuses
 * flags together before dialing, its row declares the rule; the help repeats
 * the rule's own sentence, so an operator learns of the CLI's strictness
 * (Connect and MCP accept a scope with cross_spine and ignore it) before the
 * refusal does.
 */

export const SCOPE_CROSS_SPINE_RULE = RULES["scope-cross-spine-mutually-exclusive"].sentence;

/** `--scope` and `--cross-spine`, for the reads that take both. */
export const RECALL_SCOPE_FLAGS = {
  scope: "the scope to read; required unless --cross-spine",
  crossSpine: `span every scope the caller may read instead of --scope (${SCOPE_CROSS_SPINE_RULE})`,
} as const;

const TIME_FILTERS = {
  createdAfter: { doc: "only records created at or after this instant", placeholder: "rfc3339" },
  createdBefore: { doc: "only records created before this instant", placeholder: "rfc3339" },
} as const;

const STATE_FILTERS = {
  includeArchived: "also return archived records",
  includeSuperseded: "also return superseded records",
  includeScheduled: "also return records outside their recall window (not yet due, or lapsed)",
} as const;

const SET_FILTERS = {
  tags: "only records carrying every one of these tags (repeat or comma-separate)",
  categories: "only records in any of these categories (repeat or comma-separate)",
} as const;

/** The filters a count takes: a list's, without the switch between compact rows and full records. */
export const COUNT_FILTER_FLAGS = { ...SET_FILTERS, ...TIME_FILTERS, ...STATE_FILTERS } as const;

/** The filters every verb that returns records takes. */
export const FILTER_FLAGS = {
  ...SET_FILTERS,
  full: "return full records (content, citations) instead of compact rows",
  ...TIME_FILTERS,
  ...STATE_FILTERS,
} as const;

export const TIME_FILTER_FLAGS = TIME_FILTERS;
