/** The soft term matches' products, computed natively: what the ranking relies on. */
import { describe, expect, it } from "vitest";
import { innerProductsAbove } from "../src/store/index.js";
import { clustered } from "./helpers/synthetic-vectors.js";

const DIM = 512;
// Unit vectors: a float32 sum of 512 products is off by far less than this.
const ROUNDING = 1e-5;

function loop(rows: readonly Float32Array[], queries: readonly Float32Array[]): number[] {
  return rows.flatMap((r) => queries.map((q) => r.reduce((s, x, d) => s + x * q[d]!, 0)));
}

describe("inner products of word vectors above a floor", () => {
  const draw = clustered(99, DIM);
  const rows = Array.from({ length: 300 }, draw);

  it.each([
    [1, 0.3],
    [3, 0.3],
    [5, 0.1],
    // Every product above the floor: more are asked for until all are answered.
    [2, -2],
  ])("with %i query vector(s) and floor %d, each product above the floor sits at its row and query; the rest read as the floor", async (q, floor) => {
    const queries = Array.from({ length: q }, draw);
    const got = [...(await innerProductsAbove(rows, queries, floor))];
    const want = loop(rows, queries);
    expect(got).toHaveLength(rows.length * q);
    expect(want.filter((w) => w > floor + ROUNDING).length).toBeGreaterThan(q);
    for (const [i, w] of want.entries()) {
      if (w > floor + ROUNDING) expect(Math.abs(got[i]! - w)).toBeLessThan(ROUNDING);
      else if (w < floor - ROUNDING) expect(got[i]).toBe(floor);
    }
  });

  it("gives a vector's product with itself as 1, whatever was asked before", async () => {
    await innerProductsAbove(Array.from({ length: 2000 }, draw), [draw()], 0);
    const got = await innerProductsAbove(rows.slice(0, 3), [rows[1]!], -2);
    expect(got[1]).toBeCloseTo(1, 6);
    expect(got[0]).toBeLessThan(got[1]!);
  });

  it("answers nothing for no rows or no queries", async () => {
    expect(await innerProductsAbove([], [draw()], 0)).toHaveLength(0);
    expect(await innerProductsAbove(rows, [], 0)).toHaveLength(0);
  });
});
