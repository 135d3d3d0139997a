/**
 * The closed hint vocabulary. This table is the single source: every other
 * map in this folder is a `Record` keyed by its hints or classes, so adding a
 * hint here without its class (and so its Connect code and exit status) does
 * not compile.
 */
export const HINT_TABLE = {
  required: {
    tier: "argument",
    class: "malformed",
    meaning: "The field was not supplied at all.",
    remedy: "Supply it; it was missing, not malformed.",
  },
  conditional_required: {
    tier: "argument",
    class: "malformed",
    meaning: "The field is required because of another field's value or the shape of the call.",
    remedy: "Supply the field under the condition the detail names; resending the same fields fails again.",
  },
  too_long: {
    tier: "argument",
    class: "out_of_range",
    meaning: "A string or blob you sent is longer than its byte bound.",
    remedy: "Shorten that one field and resend; the rest of the request was not the problem.",
  },
  too_many: {
    tier: "argument",
    class: "out_of_range",
    meaning: "A list you sent has more entries than its count bound.",
    remedy: "Trim the list to the bound the detail states.",
  },
  enum: {
    tier: "argument",
    class: "malformed",
    meaning: "The value is not one of the accepted values.",
    remedy: "Resend with one of the values the detail lists.",
  },
  format: {
    tier: "argument",
    class: "malformed",
    meaning: "The value has the wrong shape, such as a timestamp that is not RFC3339 or a multi-line one-liner.",
    remedy: "Fix the shape the detail names.",
  },
  prefix: {
    tier: "argument",
    class: "malformed",
    meaning: "The value must begin with a reserved prefix.",
    remedy: "Add the prefix the detail names.",
  },
  ordering: {
    tier: "argument",
    class: "precondition",
    meaning: "A before/after constraint fails, between two fields or between one field and the current time.",
    remedy: "Read every name under field= (one or two) and adjust until the ordering holds.",
  },
  mutually_exclusive: {
    tier: "argument",
    class: "precondition",
    meaning: "Two or more fields were combined that cannot be used together.",
    remedy: "Keep at most one of the fields listed under field=; the constraint is between all of them.",
  },
  not_applicable: {
    tier: "argument",
    class: "precondition",
    meaning: "The field does not apply given another field of the same call.",
    remedy: "Leave the field out entirely instead of sending an empty or default value.",
  },
  out_of_range: {
    tier: "argument",
    class: "malformed",
    meaning: "A number is above its documented maximum.",
    remedy: "Resend at or below the maximum the detail names; engram rejects, it never clamps.",
  },
  response_too_large: {
    tier: "argument",
    class: "response",
    meaning: "The result of an acceptable request is larger than one response may carry; field= is always the pseudo-field response.",
    remedy: "Ask for less: a smaller limit or k, or leave out full. The identical request fails the same way.",
  },
  irreversible: {
    tier: "operator",
    class: "precondition",
    meaning: "A revert range crosses a step declared irreversible; nothing was written.",
    remedy: "Restore a snapshot taken before the forward migration; no partial revert gets around the step.",
  },
  unsupported: {
    tier: "operator",
    class: "precondition",
    meaning: "Some records sit at a version with no reverse chain to the target.",
    remedy: "Restore a snapshot, or choose a target every record can reach.",
  },
} as const;

export type Hint = keyof typeof HINT_TABLE;
export type ErrorClass = (typeof HINT_TABLE)[Hint]["class"];
export type HintTier = (typeof HINT_TABLE)[Hint]["tier"];

export const HINTS = Object.keys(HINT_TABLE) as Hint[];

/** The twelve codes any memory operation may emit. */
export const ARGUMENT_HINTS = HINTS.filter((h) => HINT_TABLE[h].tier === "argument");

/** The two codes only `engram migrate revert` emits. */
export const OPERATOR_HINTS = HINTS.filter((h) => HINT_TABLE[h].tier === "operator");

export function isHint(value: string): value is Hint {
  return Object.prototype.hasOwnProperty.call(HINT_TABLE, value);
}

export function classOf(hint: Hint): ErrorClass {
  return HINT_TABLE[hint].class;
}
