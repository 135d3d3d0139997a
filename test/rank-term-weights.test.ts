import { describe, expect, it } from "vitest";
import { englishLogProb, priorWeight } from "../src/core/english-prior.js";
import { blendWeights, wordsOf } from "../src/core/term-weights.js";
import { termWeight } from "../src/store/term-weight.js";

describe("term weights", () => {
  it("read a word's commonness from the model package's own vocabulary, spelling a word it lacks in pieces", () => {
    expect(englishLogProb("use")).toBeCloseTo(-7.3765, 3);
    expect(englishLogProb("billing")).toBeLessThan(englishLogProb("bill"));
    expect(priorWeight("the")).toBeLessThan(priorWeight("use"));
    expect(priorWeight("use")).toBeLessThan(priorWeight("billing"));
  });

  it("weigh 'billing' above 'use' in a store of four records, where each is held by one record", () => {
    const words = wordsOf(["which database do we use for billing"]);
    const own = new Map([...words.keys()].filter((t) => t !== "databas").map((t) => [t, termWeight(4, 1)] as const));
    const blended = blendWeights(own, 4, words);
    expect(blended.get(words.has("bill") ? "bill" : "billing")!).toBeGreaterThan(2 * blended.get("us")!);
    // A term no record holds stays out, as the store leaves it out.
    expect(blended.has("databas")).toBe(false);
  });

  it("follow the store's own counts in a store of many records", () => {
    const words = wordsOf(["use billing"]);
    const own = new Map([["us", termWeight(100_000, 10)], ["bill", termWeight(100_000, 5_000)]]);
    const blended = blendWeights(own, 100_000, words);
    expect(blended.get("us")!).toBeGreaterThan(blended.get("bill")!);
    expect(blended.get("us")!).toBeCloseTo(own.get("us")!, 0);
  });
});
