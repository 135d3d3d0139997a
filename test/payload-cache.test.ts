import { describe, expect, it } from "vitest";
import { PayloadCache } from "../src/store/embedded/payload-cache.js";

describe("the point-read payload cache", () => {
  it("drops the least recently read text first once it holds too many", () => {
    const c = new PayloadCache(2, 1000);
    c.set(1, "one");
    c.set(2, "two");
    expect(c.get(1)).toBe("one");
    c.set(3, "three");
    expect([c.get(1), c.get(2), c.get(3)]).toEqual(["one", undefined, "three"]);
  });

  it("keeps its texts within the character budget and never holds one bigger than a quarter of it", () => {
    const c = new PayloadCache(100, 40);
    c.set(1, "a".repeat(10));
    c.set(2, "b".repeat(10));
    c.set(3, "c".repeat(10));
    c.set(4, "d".repeat(10));
    c.set(5, "e".repeat(10));
    expect(c.size).toBe(4);
    expect(c.get(1)).toBeUndefined();
    c.set(6, "f".repeat(11));
    expect(c.get(6)).toBeUndefined();
  });

  it("forgets a rid it is told changed, and everything when cleared", () => {
    const c = new PayloadCache();
    c.set(1, "one");
    c.set(2, "two");
    c.delete(1);
    expect(c.get(1)).toBeUndefined();
    c.clear();
    expect(c.size).toBe(0);
  });

  it("hands every reader the one frozen record a text decodes to, until the text is replaced", () => {
    const c = new PayloadCache();
    c.set(1, JSON.stringify({ id: "a", content: "first", tags: ["x"] }));
    const once = c.record(1)!;
    expect(c.record(1)).toBe(once);
    expect(Object.isFrozen(once) && Object.isFrozen(once.tags)).toBe(true);
    expect(once).toMatchObject({ content: "first", citations: [], supersedes: [] });
    c.set(1, JSON.stringify({ id: "a", content: "second", tags: [] }));
    expect(c.record(1)?.content).toBe("second");
    c.delete(1);
    expect(c.record(1)).toBeUndefined();
  });

  it("keeps no text, old or new, for a rid whose new text is too big to hold", () => {
    const c = new PayloadCache(100, 40);
    c.set(1, "a".repeat(5));
    c.set(1, "b".repeat(11));
    expect(c.get(1)).toBeUndefined();
  });
});
