import { describe, expect, it } from "vitest";
import { ascendingShortIdValues, SHORT_ID_LENGTH, shortIdsFrom } from "../src/model/short-id.js";

const ascendingShortIds = (n: number) => shortIdsFrom(ascendingShortIdValues(n));

const CROCKFORD_ID = new RegExp(`^[0-9A-HJKMNP-TV-Z]{${SHORT_ID_LENGTH}}$`);

describe("ascending short ids for a sweep", () => {
  it("hands out the requested number of well-formed ids in strictly ascending order", () => {
    const next = ascendingShortIds(5000);
    const ids = Array.from({ length: 5000 }, () => next());
    expect(ids.every((x) => CROCKFORD_ID.test(x))).toBe(true);
    expect(ids.every((x, i) => i === 0 || ids[i - 1]! < x)).toBe(true);
  });

  it("draws a fresh set each time, spread over the whole id space", () => {
    const a = ascendingShortIds(2000);
    const b = ascendingShortIds(2000);
    const first = Array.from({ length: 2000 }, () => a());
    const second = Array.from({ length: 2000 }, () => b());
    expect(first).not.toEqual(second);
    // Uniform over 32 leading characters: 2000 draws leave almost none unused.
    expect(new Set(first.map((x) => x[0])).size).toBeGreaterThan(28);
  });

  it("keeps minting well-formed ids past the count it was asked for", () => {
    const next = ascendingShortIds(1);
    next();
    const more = Array.from({ length: 50 }, () => next());
    expect(more.every((x) => CROCKFORD_ID.test(x))).toBe(true);
    expect(new Set(more).size).toBe(50);
  });

  it("a slice of the list continues where the one before it ended", () => {
    const values = ascendingShortIdValues(100);
    const first = shortIdsFrom(values, 0, 50);
    const second = shortIdsFrom(values, 50, 100);
    const ids = [...Array.from({ length: 50 }, () => first()), ...Array.from({ length: 50 }, () => second())];
    expect(ids.every((x, i) => i === 0 || ids[i - 1]! < x)).toBe(true);
  });

  it("asked for none, it mints random ids at once", () => {
    expect(ascendingShortIds(0)()).toMatch(CROCKFORD_ID);
  });
});
