import { render } from "./render.js";
import { classOf, type ErrorClass, type Hint } from "./vocabulary.js";

/** Derived numbers an error may carry: sizes, counts, indices, bounds. Never caller values. */
export type Bounds = Readonly<Record<string, number>>;

/**
 * A rejection in the envelope grammar. Constructors take numbers, not
 * caller strings, so the no-value-echo rule holds by construction.
 */
export class ArgError extends Error {
  override readonly name = "ArgError";
  readonly fields: readonly string[];
  readonly hint: Hint;
  readonly detail: string;
  readonly bounds: Bounds;
  readonly errorClass: ErrorClass;

  /**
   * `cls` overrides the hint's class for the one clock-dependent check the
   * contract classifies differently (`not_after must be in the future` is an
   * ordering hint in the out_of_range class); every other raise site takes
   * the class from the hint table.
   */
  constructor(fields: readonly string[], hint: Hint, detail: string, bounds: Bounds = {}, cls?: ErrorClass) {
    super(render(fields, hint, detail));
    this.fields = fields;
    this.hint = hint;
    this.detail = detail;
    this.bounds = bounds;
    this.errorClass = cls ?? classOf(hint);
  }
}

export function argError(field: string | readonly string[], hint: Hint, detail: string, bounds?: Bounds): ArgError {
  return new ArgError(typeof field === "string" ? [field] : field, hint, detail, bounds);
}

/** The fixed response_too_large rejection; its text carries no number by contract. */
export const RESPONSE_TOO_LARGE_DETAIL =
  "the result is too large to return in one response; retry with a smaller limit or k, or omit full";

export function responseTooLarge(): ArgError {
  return new ArgError(["response"], "response_too_large", RESPONSE_TOO_LARGE_DETAIL);
}
