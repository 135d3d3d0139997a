import type { Hint } from "./vocabulary.js";
import { ArgError } from "./arg-error.js";

/**
 * Declared relational rules. One sentence per rule is reused verbatim as the
 * envelope detail, in CLI help and in tool descriptions, so the wording
 * cannot drift between surfaces.
 */
export const RULES = {
  "scope-required-unless-cross-spine": {
    sentence: "scope is required unless cross_spine is true",
    fields: ["scope", "cross_spine"],
    hint: "conditional_required",
  },
  "schedule-window-at-least-one-bound": {
    sentence: "schedule_memory requires not_before and/or not_after (use store_memory for unscheduled records)",
    fields: ["not_before", "not_after"],
    hint: "required",
  },
  "discovery-not-schedulable": {
    sentence: "discovery is not schedulable; use store_discovery",
    fields: ["category"],
    hint: "not_applicable",
  },
  "window-not-before-before-not-after": {
    sentence: "not_before must be strictly before not_after",
    fields: ["not_before", "not_after"],
    hint: "ordering",
  },
  "paging-trio-mutually-exclusive": {
    sentence: "cursor_mode, offset, and page_token are mutually exclusive",
    fields: ["cursor_mode", "offset", "page_token"],
    hint: "mutually_exclusive",
  },
  "destructive-requires-apply": {
    sentence: "a mutating operator command previews by default and mutates only when apply is set",
    fields: ["apply"],
    hint: "conditional_required",
  },
  "verify-fail-on-accepted-values": {
    sentence: "fail-on accepts broken, moved, unverifiable, or any; omitted, verify exits 0 regardless of findings",
    fields: ["fail-on"],
    hint: "enum",
  },
  "sweep-scope-or-all-scopes-required": {
    sentence: "a sweep requires an explicit --scope or --all-scopes: name one scope, or opt into every scope",
    fields: ["scope", "all-scopes"],
    hint: "conditional_required",
  },
} as const satisfies Record<string, { sentence: string; fields: readonly string[]; hint: Hint }>;

export type RuleId = keyof typeof RULES;

export function ruleError(id: RuleId): ArgError {
  const rule = RULES[id];
  return new ArgError(rule.fields, rule.hint, rule.sentence);
}
