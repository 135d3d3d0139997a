/**
 * The growth curve as one Markdown table: a line per measure, a column per
 * size, then the exponent of the fit from each size to the next (1.0 is
 * linear). Each line says what its exponent fits: a latency or a time fits
 * itself; a memory or disk figure fits the total bytes; a rate fits the
 * total time of its run (n / rate), so a steady rate is 1.0 too.
 */
import { formatExponent, growthExponent, QUADRATIC_EXPONENT } from "./fit.js";
import { sizeLabel } from "./sizes.js";

export type CurveLine = {
  measure: string;
  /** One figure per size, as printed. */
  shown: string[];
  /** One positive number per size that the exponent fits (see above). */
  fitted: number[];
  /** False for lines that are context rather than cost (no quadratic judgement). */
  judged?: boolean;
};

export function exponents(sizes: readonly number[], line: CurveLine): number[] {
  const out: number[] = [];
  for (let i = 1; i < sizes.length; i++) out.push(growthExponent(sizes[i - 1]!, line.fitted[i - 1]!, sizes[i]!, line.fitted[i]!));
  return out;
}

/** Lines whose cost grew quadratically (or worse) between two sizes, named with the step. */
export function quadraticSteps(sizes: readonly number[], lines: readonly CurveLine[]): string[] {
  const found: string[] = [];
  for (const line of lines) {
    if (line.judged === false) continue;
    exponents(sizes, line).forEach((b, i) => {
      if (b >= QUADRATIC_EXPONENT) found.push(`${line.measure} ${sizeLabel(sizes[i]!)} -> ${sizeLabel(sizes[i + 1]!)} (${formatExponent(b)})`);
    });
  }
  return found;
}

export function curveTable(sizes: readonly number[], lines: readonly CurveLine[]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const steps = sizes.slice(1).map((n, i) => `exp ${sizeLabel(sizes[i]!)}→${sizeLabel(n)}`);
  const head = ["Measure", ...sizes.map(sizeLabel), ...steps];
  const out = [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`];
  for (const line of lines) {
    out.push(`| ${[cell(line.measure), ...line.shown.map(cell), ...exponents(sizes, line).map(formatExponent)].join(" | ")} |`);
  }
  return out.join("\n");
}
