import { Code } from "@connectrpc/connect";

/**
 * Business sentinels keep their own text (clients match on the prefix) and
 * their own Connect codes. One table, so the code of a sentinel is decided
 * here and nowhere else.
 */
export const SENTINEL_TABLE = {
  not_found: { prefix: "not found", code: Code.NotFound },
  ambiguous_short_id: { prefix: "ambiguous short id", code: Code.FailedPrecondition },
  already_superseded: { prefix: "target is already superseded", code: Code.FailedPrecondition },
  rule_immutable: { prefix: "rules are always shared", code: Code.FailedPrecondition },
  stale_summary: {
    prefix:
      'content changed but a caller-authored summary would go stale: re-send the same summary to keep it, pass an updated one, or pass summary="" to clear it',
    code: Code.FailedPrecondition,
  },
  idempotency_conflict: {
    prefix: "idempotency_key was already used with different content",
    code: Code.AlreadyExists,
  },
  write_contended: {
    prefix: "record kept changing under concurrent writes, nothing was written",
    code: Code.Aborted,
  },
} as const;

export type SentinelKind = keyof typeof SENTINEL_TABLE;

export class SentinelError extends Error {
  override readonly name = "SentinelError";
  constructor(
    readonly kind: SentinelKind,
    message: string,
  ) {
    super(message);
  }
  get code(): Code {
    return SENTINEL_TABLE[this.kind].code;
  }
}

/**
 * `not found: a, b` — the inputs exactly as the caller sent them, never the
 * resolved id, so another owner's record leaks nothing.
 */
export function notFound(inputs: readonly string[]): SentinelError {
  return new SentinelError("not_found", `${SENTINEL_TABLE.not_found.prefix}: ${inputs.join(", ")}`);
}

export function ambiguousShortId(input: string): SentinelError {
  return new SentinelError("ambiguous_short_id", `${SENTINEL_TABLE.ambiguous_short_id.prefix}: ${input}`);
}

export function alreadySuperseded(inputs: readonly string[]): SentinelError {
  return new SentinelError("already_superseded", `${SENTINEL_TABLE.already_superseded.prefix}: ${inputs.join(", ")}`);
}

export type RuleImmutableAction = "visibility" | "private" | "supersede";
const RULE_SUFFIX: Record<RuleImmutableAction, string> = {
  visibility: "delete the rule instead of changing its visibility",
  private: "delete the rule instead of making it private",
  supersede: "delete the rule instead of superseding it",
};

export function ruleImmutable(action: RuleImmutableAction, inputs?: readonly string[]): SentinelError {
  const head = SENTINEL_TABLE.rule_immutable.prefix;
  const who = inputs && inputs.length > 0 ? `: ${inputs.join(", ")}` : "";
  return new SentinelError("rule_immutable", `${head}${who} — ${RULE_SUFFIX[action]}`);
}

export function staleSummary(): SentinelError {
  return new SentinelError("stale_summary", SENTINEL_TABLE.stale_summary.prefix);
}

export function idempotencyConflict(): SentinelError {
  return new SentinelError("idempotency_conflict", SENTINEL_TABLE.idempotency_conflict.prefix);
}

/**
 * A conditional write that lost to other writers on every attempt. Nothing
 * was written; the same request may succeed once the contention passes.
 * Names the inputs as sent, like not found.
 */
export function writeContended(inputs: readonly string[]): SentinelError {
  return new SentinelError("write_contended", `${SENTINEL_TABLE.write_contended.prefix}: ${inputs.join(", ")}`);
}
