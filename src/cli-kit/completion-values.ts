import type { Option } from "commander";

/**
 * Fixed values of a list flag (`--class a,b`): commander's choices() would
 * refuse the comma list, so the values the completion scripts offer are kept here.
 */
const LIST_VALUES = new WeakMap<Option, readonly string[]>();

export function completesTo(option: Option, values: readonly string[]): Option {
  LIST_VALUES.set(option, values);
  return option;
}

/** The values `completesTo` declared for a list flag, if any. */
export function listValues(option: Option): readonly string[] | undefined {
  return LIST_VALUES.get(option);
}
