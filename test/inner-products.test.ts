/** The soft term matches' products, computed natively: what the ranking relies on. */
import { describe, expect, it } from "vitest";
import { innerProducts, quantize, type QuantizedVector } from "../src/store/index.js";
import { codeDot } from "../src/store/quantized-vector.js";
import { clustered } from "./helpers/synthetic-vectors.js";

const DIM = 512;

/** The products as the codes define them: an exact integer sum times both scales. */
function loop(rows: readonly QuantizedVector[], queries: readonly QuantizedVector[]): number[] {
  return rows.flatMap((r) => queries.map((q) => codeDot(r.codes, q.codes) * r.scale * q.scale));
}

describe("inner products of quantized word vectors", () => {
  const draw = () => quantize(next());
  const next = clustered(99, DIM);
  const rows = Array.from({ length: 300 }, draw);

  it.each([1, 3, 5])("with %i query vector(s), every product sits at its row and query, exactly as the codes define it", async (q) => {
    const queries = Array.from({ length: q }, draw);
    const got = [...(await innerProducts(rows, queries))];
    expect(got).toEqual(loop(rows, queries));
  });

  it("gives every product when all of them are large, as when the rows are the query itself", async () => {
    const query = draw();
    const got = await innerProducts(Array.from({ length: 500 }, () => query), [query, rows[0]!]);
    const [self, other] = loop([query], [query, rows[0]!]);
    for (let r = 0; r < 500; r++) {
      expect(got[r * 2]).toBe(self);
      expect(got[r * 2 + 1]).toBe(other);
    }
    expect(self).toBeCloseTo(1, 2);
  });

  it("gives a vector's product with itself as about 1, whatever was asked before", async () => {
    await innerProducts(Array.from({ length: 2000 }, draw), [draw()]);
    const got = await innerProducts(rows.slice(0, 3), [rows[1]!]);
    expect(got[1]).toBeCloseTo(1, 2);
    expect(got[0]).toBeLessThan(got[1]!);
  });

  it("answers nothing for no rows or no queries", async () => {
    expect(await innerProducts([], [draw()])).toHaveLength(0);
    expect(await innerProducts(rows, [])).toHaveLength(0);
  });
});
