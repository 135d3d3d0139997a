import { argError } from "../argerror/index.js";

/**
 * RFC3339 instants as every lane reads them: the proto JSON mapping's form
 * (upper-case `T` and `Z`, at most nine fraction digits, years 0001-9999),
 * each field in its range. A date that does not exist (February 30, hour
 * 24) is refused, not rolled over to another day.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))$/;

/** An instant: whole seconds since the epoch, the nanoseconds past them, and as a date (to the millisecond). */
export type Rfc3339Instant = { seconds: number; nanos: number; date: Date };

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The instant `text` names, or undefined when it is not RFC3339 in the proto JSON form. */
export function readRfc3339(text: string): Rfc3339Instant | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetH = m[10] === undefined ? 0 : Number(m[10]);
  const offsetM = m[11] === undefined ? 0 : Number(m[11]);
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59 || offsetH > 23 || offsetM > 59) return undefined;
  const offset = (m[9] === "-" ? -1 : 1) * (offsetH * 3600 + offsetM * 60);
  const utc = new Date(0);
  utc.setUTCFullYear(y, mo - 1, d);
  utc.setUTCHours(h, mi, s, 0);
  const seconds = utc.getTime() / 1000 - offset;
  const nanos = Number((m[7] ?? "").padEnd(9, "0"));
  return { seconds, nanos, date: new Date(seconds * 1000 + Math.floor(nanos / 1e6)) };
}

/** `value` as an instant, unset when empty; anything else is the field's format envelope. */
export function parseRfc3339Instant(field: string, value: string | undefined): Rfc3339Instant | undefined {
  if (value === undefined || value === "") return undefined;
  const instant = readRfc3339(value);
  if (instant === undefined) throw argError(field, "format", `${field} must be RFC3339`);
  return instant;
}
