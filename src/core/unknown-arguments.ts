import { argError } from "../argerror/index.js";
import { plainName } from "./arg-kinds.js";

/**
 * Refuses the first argument, in the order sent, that the operation does not
 * take, rather than dropping it: a dropped `offset` or a misspelt `tag`
 * would silently change the answer. The name is repeated only when it is a
 * plain identifier of at most 64 bytes; anything else is reported under a
 * pseudo-field, `arguments` on MCP. Connect passes `request`, its pseudo-field
 * for the body as a whole, so both lanes share one sentence.
 */
export function rejectUnknownArguments(
  operation: string,
  accepted: readonly string[],
  args: Record<string, unknown>,
  unnamed = "arguments",
): void {
  for (const name of Object.keys(args)) {
    if (accepted.includes(name)) continue;
    if (plainName(name)) throw argError(name, "not_applicable", `${name} is not an argument of ${operation}`);
    throw argError(unnamed, "not_applicable", `an argument name is not an argument of ${operation}`);
  }
}
