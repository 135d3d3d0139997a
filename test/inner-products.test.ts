/** The soft term matches' products, computed natively: what the ranking relies on. */
import { describe, expect, it } from "vitest";
import { innerProducts } from "../src/store/index.js";
import { clustered } from "./helpers/synthetic-vectors.js";

const DIM = 512;
// Unit vectors: a float32 sum of 512 products is off by far less than this.
const ROUNDING = 1e-5;

function loop(rows: readonly Float32Array[], queries: readonly Float32Array[]): number[] {
  return rows.flatMap((r) => queries.map((q) => r.reduce((s, x, d) => s + x * q[d]!, 0)));
}

describe("inner products of word vectors", () => {
  const draw = clustered(99, DIM);
  const rows = Array.from({ length: 300 }, draw);

  it.each([1, 3, 5])("with %i query vector(s), every product sits at its row and query", async (q) => {
    const queries = Array.from({ length: q }, draw);
    const got = [...(await innerProducts(rows, queries))];
    const want = loop(rows, queries);
    expect(got).toHaveLength(rows.length * q);
    for (const [i, w] of want.entries()) expect(Math.abs(got[i]! - w)).toBeLessThan(ROUNDING);
  });

  it("gives every product when all of them are large, as when the rows are the query itself", async () => {
    const query = draw();
    const got = await innerProducts(Array.from({ length: 500 }, () => query), [query, rows[0]!]);
    for (let r = 0; r < 500; r++) {
      expect(got[r * 2]).toBeCloseTo(1, 5);
      expect(Math.abs(got[r * 2 + 1]! - loop([query], [rows[0]!])[0]!)).toBeLessThan(ROUNDING);
    }
  });

  it("gives a vector's product with itself as 1, whatever was asked before", async () => {
    await innerProducts(Array.from({ length: 2000 }, draw), [draw()]);
    const got = await innerProducts(rows.slice(0, 3), [rows[1]!]);
    expect(got[1]).toBeCloseTo(1, 6);
    expect(got[0]).toBeLessThan(got[1]!);
  });

  it("answers nothing for no rows or no queries", async () => {
    expect(await innerProducts([], [draw()])).toHaveLength(0);
    expect(await innerProducts(rows, [])).toHaveLength(0);
  });
});
