/** Word vectors kept as 8-bit codes: what soft term matches rely on of them. */
import { describe, expect, it } from "vitest";
import { codeDot, quantize } from "../src/store/quantized-vector.js";
import { clustered } from "./helpers/synthetic-vectors.js";

const DIM = 512;

function floatDot(a: Float32Array, b: Float32Array): number {
  return a.reduce((s, x, d) => s + x * b[d]!, 0);
}

describe("a quantized vector", () => {
  const draw = clustered(99, DIM);
  const vectors = Array.from({ length: 120 }, draw);
  const quantized = vectors.map(quantize);

  it("codes its largest magnitude as ±127 and the rest in proportion", () => {
    const v = Float32Array.from([0.5, -0.25, 0.125, 0]);
    const q = quantize(v);
    expect([...q.codes]).toEqual([127, -64, 32, 0]);
    expect(q.scale).toBeCloseTo(0.5 / 127, 12);
  });

  it("gives products of unit vectors within a few thousandths of the float products", () => {
    let worst = 0;
    for (let i = 0; i < vectors.length; i++) {
      for (let j = i; j < vectors.length; j++) {
        const product = codeDot(quantized[i]!.codes, quantized[j]!.codes) * quantized[i]!.scale * quantized[j]!.scale;
        worst = Math.max(worst, Math.abs(product - floatDot(vectors[i]!, vectors[j]!)));
      }
    }
    expect(worst).toBeLessThan(5e-3);
  });

  it("quantizes a negated vector to the negated codes", () => {
    const v = vectors[0]!;
    const q = quantize(v);
    const n = quantize(v.map((x) => -x));
    expect([...n.codes]).toEqual([...q.codes].map((c) => -c || 0));
    expect(n.scale).toBe(q.scale);
  });

  it("quantizes a vector with no finite largest magnitude (zeros, a NaN, an infinity) to zeros, whose every product is 0", () => {
    const infinite = new Float32Array(DIM).fill(0.01);
    infinite[7] = Number.POSITIVE_INFINITY;
    const oneNaN = new Float32Array(DIM).fill(0.01);
    oneNaN[3] = Number.NaN;
    for (const v of [new Float32Array(DIM), new Float32Array(DIM).fill(Number.NaN), oneNaN, infinite]) {
      const q = quantize(v);
      expect(q.codes.every((c) => c === 0)).toBe(true);
      expect(codeDot(q.codes, quantized[0]!.codes) * q.scale).toBe(0);
    }
  });
});
