/**
 * Durations as operators type them: a number and a unit, optionally chained
 * (`500ms`, `30s`, `2m`, `1m30s`, `1.5h`). A bare number has no unit and is
 * refused, so `--timeout 30` cannot silently mean 30 milliseconds.
 */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const WHOLE = /^([+-]?)((?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+)$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g;

/** Milliseconds, possibly zero or negative; undefined when the text is not a duration. */
export function parseDurationMs(text: string): number | undefined {
  const m = WHOLE.exec(text.trim());
  if (!m) return undefined;
  let total = 0;
  for (const part of m[2]!.matchAll(PART)) total += Number(part[1]) * UNIT_MS[part[2]!]!;
  return m[1] === "-" ? -total : total;
}
