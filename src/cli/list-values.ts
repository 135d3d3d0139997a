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

/** Non-negative integers for uint64 knobs; no client-side upper bound (the server owns caps). */
export function parseUint(value: string): bigint {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError("expected a non-negative integer");
  return BigInt(value.trim());
}
