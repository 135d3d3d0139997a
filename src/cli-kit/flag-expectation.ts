import type { Option } from "commander";

/** What a flag's refusal says it expects, where that is narrower than its parser's (`--batch-size`: 1 to 100000). */
const EXPECTS = new WeakMap<Option, string>();

export function expecting(option: Option, text: string): Option {
  EXPECTS.set(option, text);
  return option;
}

/** The expectation `expecting` declared for a flag, if any. */
export function declaredExpectation(option: Option): string | undefined {
  return EXPECTS.get(option);
}
