import { InvalidArgumentError } from "commander";

/**
 * Argument parsers for commander options. List flags accept both repeats and
 * comma lists: `--tags a --tags b,c` is [a, b, c]. An explicit empty value
 * (`--tags ""`) yields [] so an update can clear a list. A blank entry inside
 * a list (`--tags a,,b`) is passed on as "" so the core rejects it with the
 * same envelope every lane gives, rather than the CLI quietly dropping it.
 */
export function collectList(value: string, previous: string[] | undefined): string[] {
  if (value.trim() === "") return [...(previous ?? [])];
  const parts = value.split(",").map((s) => s.trim());
  return [...(previous ?? []), ...parts];
}

/**
 * List flags of a destructive verb, where a value narrows what is deleted:
 * an empty value is an entry "" like any other, for the verb to refuse. An
 * empty shell variable (`--class "$CLASS"`) must not widen a purge.
 */
export function collectEntries(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(",").map((s) => s.trim())];
}

/**
 * Non-negative integers for uint64 knobs, of any size. The server owns every
 * cap, the wire's included: a number no uint64 holds is sent as Connect JSON
 * (rpc.ts), and the server refuses it as out of range in the words it gives
 * every lane. The parse error names neither the flag nor the value;
 * flag-errors.ts words it.
 */
export function parseUint(value: string): bigint {
  const text = value.trim();
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError("expected a non-negative integer");
  return BigInt(text);
}
