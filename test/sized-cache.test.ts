import { describe, expect, it } from "vitest";
import { SizedCache } from "../src/model/sized-cache.js";

describe("a cache bounded by entries and by size", () => {
  it("lets the oldest entries go first once it holds too many", () => {
    const cache = new SizedCache<number, string>(16, 1_000);
    for (let i = 0; i < 17; i++) cache.set(i, `v${i}`, 1);
    expect(cache.size).toBeLessThanOrEqual(16);
    expect(cache.get(0)).toBeUndefined();
    expect(cache.get(16)).toBe("v16");
  });

  it("lets entries go until their sizes fit, and keeps none bigger than a sixteenth of the bound", () => {
    const cache = new SizedCache<number, string>(1_000, 160);
    cache.set(0, "too big", 11);
    expect(cache.get(0)).toBeUndefined();
    for (let i = 1; i <= 20; i++) cache.set(i, `v${i}`, 10);
    expect(cache.size).toBeLessThanOrEqual(16);
    expect(cache.get(20)).toBe("v20");
  });

  it("counts a replaced or deleted entry's size no more", () => {
    const cache = new SizedCache<number, string>(1_000, 160);
    for (let i = 0; i < 16; i++) cache.set(i, `v${i}`, 10);
    cache.set(3, "again", 10);
    cache.delete(4);
    cache.set(99, "fits", 10);
    expect(cache.size).toBe(16);
    expect(cache.get(0)).toBe("v0");
  });

  it("asked to, keeps the most recently read longest and lets go just enough to fit", () => {
    const cache = new SizedCache<number, string>(3, 1_000, { byRead: true, justEnough: true });
    for (let i = 0; i < 3; i++) cache.set(i, `v${i}`, 1);
    expect(cache.get(0)).toBe("v0");
    cache.set(3, "v3", 1);
    expect([cache.has(0), cache.has(1), cache.has(2), cache.has(3)]).toEqual([true, false, true, true]);
  });

  it("asked to, keeps values up to a larger part of the size bound", () => {
    const cache = new SizedCache<number, string>(1_000, 40, { largestPart: 4 });
    cache.set(0, "fits", 10);
    cache.set(1, "too big", 11);
    expect([cache.get(0), cache.get(1)]).toEqual(["fits", undefined]);
  });
});
