import { argError } from "../argerror/index.js";
import { byteLength } from "./bytes.js";
import type { Limits } from "./limits.js";
import { isSingleLine } from "./validate.js";

const RULE_PREFIXES = ["rule:repo:", "rule:project:"] as const;
export const RULE_SCOPE_SENTENCE = "must be rule:repo:<repo> or rule:project:<project>";

export function isRuleScope(scope: string): boolean {
  return RULE_PREFIXES.some((p) => scope.startsWith(p) && scope.length > p.length);
}

/** A rule is written only into a rule scope of a repository or a project. */
export function checkRuleScope(scope: string): void {
  if (!isRuleScope(scope)) throw argError("scope", "prefix", `scope ${RULE_SCOPE_SENTENCE}`);
}

/** A rule's summary is its one-line index entry: present, single line, bounded. */
export function checkRuleSummary(summary: string | undefined, limits: Limits): void {
  if (summary === undefined || summary.trim() === "") {
    throw argError("summary", "required", "summary is required for a rule (it is the one-line index entry)");
  }
  if (!isSingleLine(summary)) {
    throw argError("summary", "format", "rule summary must be a single line (no newlines); it is the index entry");
  }
  const n = byteLength(summary);
  if (n > limits.maxRuleSummaryBytes) {
    throw argError("summary", "too_long", `summary too long: ${n} bytes (max ${limits.maxRuleSummaryBytes})`, {
      max: limits.maxRuleSummaryBytes,
      got: n,
    });
  }
}
