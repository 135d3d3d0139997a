import type { Hint } from "./vocabulary.js";
import { ArgError } from "./arg-error.js";

/**
 * Declared relational rules. One sentence per rule is reused verbatim as the
 * envelope detail, in CLI help and in tool descriptions, so the wording
 * cannot drift between surfaces.
 *
 * `tier` says who raises a rule. A `core` rule is raised by the core and so
 * reads the same on every lane. A `cli` rule is raised by the CLI alone:
 * operator flags that no request carries, and the one place where the CLI
 * is deliberately stricter than the wire (scope with cross_spine, as the
 * original CLI was). Declaring it here is what lets the lane parity test
 * allow exactly these and fail on any other CLI-only refusal.
 */
export const RULES = {
  "scope-required-unless-cross-spine": {
    sentence: "scope is required unless cross_spine is true",
    fields: ["scope", "cross_spine"],
    hint: "conditional_required",
    tier: "core",
  },
  "schedule-window-at-least-one-bound": {
    sentence: "schedule_memory requires not_before and/or not_after (use store_memory for unscheduled records)",
    fields: ["not_before", "not_after"],
    hint: "required",
    tier: "core",
  },
  "discovery-not-schedulable": {
    sentence: "discovery is not schedulable; use store_discovery",
    fields: ["category"],
    hint: "not_applicable",
    tier: "core",
  },
  "window-not-before-before-not-after": {
    sentence: "not_before must be strictly before not_after",
    fields: ["not_before", "not_after"],
    hint: "ordering",
    tier: "core",
  },
  "paging-trio-mutually-exclusive": {
    sentence: "cursor_mode, offset, and page_token are mutually exclusive",
    fields: ["cursor_mode", "offset", "page_token"],
    hint: "mutually_exclusive",
    tier: "core",
  },
  "scope-cross-spine-mutually-exclusive": {
    sentence: "scope and cross_spine cannot be combined; cross_spine already spans every scope the caller may read",
    fields: ["scope", "cross_spine"],
    hint: "mutually_exclusive",
    tier: "cli",
  },
  "destructive-requires-apply": {
    sentence: "a mutating operator command previews by default and mutates only when apply is set",
    fields: ["apply"],
    hint: "conditional_required",
    tier: "cli",
  },
  "verify-fail-on-accepted-values": {
    sentence: "fail-on accepts broken, moved, unverifiable, or any; omitted, verify exits 0 regardless of findings",
    fields: ["fail-on"],
    hint: "enum",
    tier: "cli",
  },
  "sweep-scope-or-all-scopes-required": {
    sentence: "a sweep requires an explicit --scope or --all-scopes: name one scope, or opt into every scope",
    fields: ["scope", "all-scopes"],
    hint: "conditional_required",
    tier: "cli",
  },
  "purge-filter-requires-scope": {
    sentence:
      "the free-form filter path requires an explicit --scope or --all-scopes: category or tags always engage it, and older-than engages it when no class is selected",
    fields: ["scope", "category", "tags", "older-than"],
    hint: "conditional_required",
    tier: "cli",
  },
} as const satisfies Record<string, { sentence: string; fields: readonly string[]; hint: Hint; tier: RuleTier }>;

export type RuleTier = "core" | "cli";
export type RuleId = keyof typeof RULES;

/** The rules only the CLI raises, in declaration order. */
export const CLI_TIER_RULES = (Object.keys(RULES) as RuleId[]).filter((id) => RULES[id].tier === "cli");

export function ruleError(id: RuleId): ArgError {
  const rule = RULES[id];
  return new ArgError(rule.fields, rule.hint, rule.sentence);
}
