/**
 * How a measure grew between two store sizes: the exponent b of the power
 * law v = a·n^b through both points, log(v2/v1) / log(n2/n1). 1.0 is
 * linear, 0 flat, 2.0 quadratic; a rate (records/s) that holds steady is 0.
 */
export function growthExponent(n1: number, v1: number, n2: number, v2: number): number {
  if (!(n1 > 0 && n2 > 0 && n1 !== n2)) throw new RangeError("growthExponent needs two distinct positive sizes");
  if (!(v1 > 0 && v2 > 0)) return Number.NaN;
  return Math.log(v2 / v1) / Math.log(n2 / n1);
}

/** The exponent as printed in the curve's tables: two decimals, "n/a" when undefined. */
export function formatExponent(b: number): string {
  if (!Number.isFinite(b)) return "n/a";
  const s = b.toFixed(2);
  return s === "-0.00" ? "0.00" : s;
}

/**
 * The exponent above which a cost counts as growing quadratically. A
 * measured exponent near 2 is a quadratic step; the bar sits between
 * n·log n at these sizes (about 1.1) and 2, so noise on a linear step never
 * trips it.
 */
export const QUADRATIC_EXPONENT = 1.6;
