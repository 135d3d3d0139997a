/**
 * One row of the `npm run bench` goal table. Each measured figure is printed
 * next to the reference it was measured against in the same run, because
 * these machines are noisy and only ratios carry from one run to the next.
 */
export type BenchRow = {
  /** What is measured, e.g. "Connect GetMemory vs a no-op RPC". */
  measure: string;
  /** The measured figure with its unit, e.g. "0.41 ms p50". */
  value: string;
  /** The reference measured in the same run, e.g. "no-op RPC 0.35 ms p50"; "" when the goal is absolute. */
  reference: string;
  /** value / reference when the goal is a ratio. */
  ratio?: number;
  /** The goal as stated in the issue, e.g. "<= 1.3x". */
  goal: string;
  met: boolean;
};

/** A group of rows measured together (one module under bench/rows/). */
export type BenchSection = () => Promise<BenchRow[]>;
