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

const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Non-negative integers for uint64 knobs. The server owns every cap, so the
 * only bound here is the wire's own: a number no uint64 can hold cannot be
 * sent at all, and is refused like any other value that is not a uint64
 * (the Connect JSON lane answers such a number the same way). The parse
 * error names neither the flag nor the value; flag-errors.ts words it.
 */
export function parseUint(value: string): bigint {
  const text = value.trim();
  if (!/^\d+$/.test(text) || BigInt(text) > UINT64_MAX) throw new InvalidArgumentError("expected a non-negative integer");
  return BigInt(text);
}
