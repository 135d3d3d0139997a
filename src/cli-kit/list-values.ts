import { InvalidArgumentError } from "commander";

/**
 * Argument parsers for commander options. List flags accept both repeats and
 * comma lists: `--tags a --tags b,c` is [a, b, c], spaces around an entry
 * dropped (`a, b`). Only an exactly empty value given alone (`--tags ""`)
 * yields [], so an update can clear a list. A blank entry (`--tags a,,b`,
 * `--tags " "`, or `""` repeated after a value) is passed on as "" so the
 * core rejects it with the envelope every lane gives, rather than the CLI
 * quietly dropping an entry or a filter.
 */
export function collectList(value: string, previous: string[] | undefined): string[] {
  if (value === "" && (previous === undefined || previous.length === 0)) return [];
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
