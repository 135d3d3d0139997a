import { describe, expect, it } from "vitest";
import { curveTable, quadraticSteps } from "../bench/growth/curve-table.js";
import { formatExponent, growthExponent } from "../bench/growth/fit.js";
import { growthSizes, sizeLabel } from "../bench/growth/sizes.js";

describe("the growth curve's fit", () => {
  it("reads 1.0 for linear growth, 0 for flat, 2.0 for quadratic and 0.5 for a square root", () => {
    expect(growthExponent(10_000, 3, 100_000, 30)).toBeCloseTo(1, 12);
    expect(growthExponent(100_000, 7, 1_000_000, 7)).toBe(0);
    expect(growthExponent(10_000, 1, 100_000, 100)).toBeCloseTo(2, 12);
    expect(growthExponent(100, 2, 10_000, 20)).toBeCloseTo(0.5, 12);
    expect(formatExponent(growthExponent(1, 5, 10, 0))).toBe("n/a");
    expect(() => growthExponent(10, 1, 10, 2)).toThrow(RangeError);
  });

  it("names each quadratic step and prints one exponent column per step", () => {
    const sizes = [1000, 10_000, 100_000];
    const lines = [
      { measure: "linear", shown: ["1", "10", "100"], fitted: [1, 10, 100] },
      { measure: "quadratic late", shown: ["1", "10", "1000"], fitted: [1, 10, 1000] },
      { measure: "context", shown: ["1", "100", "10000"], fitted: [1, 100, 10_000], judged: false },
    ];
    expect(quadraticSteps(sizes, lines)).toEqual(["quadratic late 10k -> 100k (2.00)"]);
    expect(curveTable(sizes, lines).split("\n")).toEqual([
      "| Measure | 1k | 10k | 100k | exp 1k→10k | exp 10k→100k |",
      "|---|---|---|---|---|---|",
      "| linear | 1 | 10 | 100 | 1.00 | 1.00 |",
      "| quadratic late | 1 | 10 | 1000 | 1.00 | 2.00 |",
      "| context | 1 | 100 | 10000 | 2.00 | 2.00 |",
    ]);
  });

  it("takes its sizes from ENGRAM_BENCH_GROWTH_SIZES, smallest first, else 10k, 100k and 1M", () => {
    expect(growthSizes({})).toEqual([10_000, 100_000, 1_000_000]);
    expect(growthSizes({ ENGRAM_BENCH_GROWTH_SIZES: "2000, 20_000" })).toEqual([2000, 20_000]);
    expect(() => growthSizes({ ENGRAM_BENCH_GROWTH_SIZES: "20000,2000" })).toThrow(/grow/);
    expect(() => growthSizes({ ENGRAM_BENCH_GROWTH_SIZES: "1e4x" })).toThrow(/whole numbers/);
    expect([10_000, 1_000_000, 2500].map(sizeLabel)).toEqual(["10k", "1M", "2,500"]);
  });
});
