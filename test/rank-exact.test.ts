import { describe, expect, it } from "vitest";
import { exactFirst } from "../src/core/rank-exact.js";
import { deepFreeze } from "../src/model/deep-freeze.js";
import type { MemoryRecord, ScoredRecord } from "../src/model/record.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

const rec = (i: number, content: string): MemoryRecord => deepFreeze(syntheticRecord(i, { scope: "s", content, tags: [] }));

/** The final order of `ranked` (scores as the passes left them) given the lanes' cosines. */
function order(query: string, ranked: [MemoryRecord, number, number][]): string[] {
  const cosines = new Map(ranked.map(([r, cosine]) => [r, cosine]));
  const hits: ScoredRecord[] = ranked.map(([record, , score]) => ({ record, score }));
  return exactFirst(query, cosines, hits).map((h) => h.record.content);
}

describe("exact and near-exact matches", () => {
  it("put the record whose content is the query first, however far lifts carried others past it", () => {
    const exact = rec(1, "Use pnpm, not npm, in the web repo.");
    const lifted = rec(2, "pnpm in the web repo: use it, not npm, as before");
    const near = rec(3, "we never use npm");
    expect(order("use PNPM not npm in the web repo", [[lifted, 0.97, 3.1], [near, 0.6, 2.2], [exact, 1, 1.9]])).toEqual([
      exact.content,
      lifted.content,
      near.content,
    ]);
  });

  it("keep a record holding every query term at a cosine near 1 above records that only lifts carried past it", () => {
    const near = rec(1, "billing moved to CockroachDB last spring");
    const other = rec(2, "invoices and payments live elsewhere");
    expect(order("billing moved to CockroachDB", [[other, 0.5, 2.5], [near, 0.97, 1.6]])).toEqual([near.content, other.content]);
  });

  it("leave a record holding every query term but far from it in meaning where the passes put it", () => {
    const far = rec(1, "billing moved CockroachDB, said nobody");
    const other = rec(2, "invoices and payments live elsewhere");
    expect(order("billing moved to CockroachDB", [[other, 0.5, 2.5], [far, 0.4, 1.6]])).toEqual([other.content, far.content]);
  });

  it("keep the passes' order within each level and return scores in descending order", () => {
    const a = rec(1, "deploy on tuesday");
    const b = rec(2, "Deploy on Tuesday!");
    const c = rec(3, "something else entirely");
    const cosines = new Map([[a, 1], [b, 1], [c, 0.2]]);
    const out = exactFirst("deploy on Tuesday", cosines, [{ record: c, score: 4 }, { record: b, score: 1.5 }, { record: a, score: 1.2 }]);
    expect(out.map((h) => h.record.content)).toEqual([b.content, a.content, c.content]);
    for (let i = 1; i < out.length; i++) expect(out[i - 1]!.score).toBeGreaterThan(out[i]!.score);
  });

  it("change nothing when no candidate matches exactly", () => {
    const a = rec(1, "alpha beta");
    const b = rec(2, "gamma");
    const hits = [{ record: b, score: 2 }, { record: a, score: 1 }];
    expect(exactFirst("alpha delta", new Map([[a, 0.99], [b, 0.1]]), hits)).toEqual(hits);
  });
});
