import { describe, expect, it } from "vitest";
import { withContext } from "../src/core/rank-context.js";
import { firstPass, withFeedback } from "../src/core/rank.js";
import { deepFreeze } from "../src/model/deep-freeze.js";
import type { ScoredRecord } from "../src/model/record.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

const at = (i: number, scope: string, score: number): ScoredRecord => ({ record: deepFreeze(syntheticRecord(i, { scope })), score });

const said = (i: number, content: string, score: number): ScoredRecord => ({ record: deepFreeze(syntheticRecord(i, { scope: "s", content })), score });

const hit = (i: number, content: string, score: number, extra: { summary?: string; tags?: string[] } = {}): ScoredRecord => ({
  record: deepFreeze(syntheticRecord(i, { content, ...extra })),
  score,
});

describe("the ranking", () => {
  it("orders by cosine alone when no query term is known to the store, the score being the cosine clamped to [-1, 1]", () => {
    const ranked = firstPass(["zzz"], new Map(), [hit(1, "a", 0.2), hit(2, "b", 1.0000000012), hit(3, "c", -0.5)]);
    expect(ranked.map((h) => [h.record.id, h.score])).toEqual([
      [syntheticRecord(2).id, 1],
      [syntheticRecord(1).id, 0.2],
      [syntheticRecord(3).id, -0.5],
    ]);
  });

  it("lifts a record holding the rarer query word over one holding the commoner, and counts summary and tags", () => {
    const weights = new Map([
      ["pnpm", 3],
      ["manag", 1],
    ]);
    const ranked = firstPass(["pnpm", "manag"], weights, [
      hit(1, "the team manager", 0.3),
      hit(2, "use it for installs", 0.3, { summary: "pnpm only" }),
      hit(3, "nothing", 0.35, { tags: ["manager"] }),
    ]);
    // The tag matches as the content does, and the nearer record of the two wins.
    expect(ranked.map((h) => h.record.id)).toEqual([syntheticRecord(2).id, syntheticRecord(3).id, syntheticRecord(1).id]);
    for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1]!.score).toBeGreaterThanOrEqual(ranked[i]!.score);
  });

  it("takes feedback terms only from records holding a query term, and keeps every candidate in descending score order", () => {
    const q = new Map([["vase", 2]]);
    const ranked = firstPass(["vase"], q, [
      hit(1, "weekly sync notes", 0.9),
      hit(2, "weekly sync notes again", 0.85),
      hit(3, "the cat broke a vase", 0.1),
      hit(4, "the cat sleeps all day", 0.2),
    ]);
    // "cat" comes back from the vase record; "weekly" and "sync" would have come from the two nearest, which hold no query term.
    const fed = withFeedback(ranked, ["vase"], q, new Map([["cat", 1], ["weekli", 1], ["sync", 1], ["broke", 1]]));
    expect(fed.map((h) => h.record.id)).toEqual([3, 1, 2, 4].map((i) => syntheticRecord(i).id));
    const plain = withFeedback(ranked, ["vase"], q, new Map());
    expect(plain.map((h) => h.record.id)).toEqual(ranked.map((h) => h.record.id));
    expect(fed[0]!.score).toBeCloseTo(0.1 + 0.2 + 0.4 + 0.3, 6);
  });

  it("lifts a record whose storage neighbour in its scope ranks well, never one from another scope, and keeps k in descending score order", () => {
    // Stored in the order of their numbers; 2 sits between the best match (1) and 3, and 11 is in another scope.
    const ranked = [at(1, "s", 1.5), at(11, "o", 0.42), at(3, "s", 0.41), at(2, "s", 0.4), at(20, "s", 0)];
    const lifted = withContext(ranked, 5, 4);
    expect(lifted.map((h) => h.record.id)).toEqual([1, 2, 3, 11].map((i) => syntheticRecord(i).id));
    // 2's better neighbour is 1, 1.5 above the weakest candidate; 11 has no neighbour in its scope.
    expect(lifted[1]!.score).toBeCloseTo(0.4 + 0.4 * 1.5, 6);
    expect(lifted[3]!.score).toBeCloseTo(0.42, 6);
    for (let i = 1; i < lifted.length; i++) expect(lifted[i - 1]!.score).toBeGreaterThanOrEqual(lifted[i]!.score);
  });

  it("lifts the record stored after a question twice as much as its other neighbour would, and lowers the question itself by 0.2", () => {
    // 1 asks and 3 states, both matching best; 2 (the answer to 1) and 4 (stored after 3) are weak alike. The floor is 9's 0.
    const ranked = [said(1, "How long have you been married? ", 1.5), said(3, "We married in June.", 1.5), said(2, "Five years already!", 0.1), said(4, "Yes.", 0.1), said(9, "unrelated", 0)];
    const lifted = withContext(ranked, 5, 5);
    const score = new Map(lifted.map((h) => [h.record.id, h.score]));
    expect(score.get(syntheticRecord(1).id)).toBeCloseTo(1.5 - 0.2 + 0.4 * 0.1, 6);
    expect(score.get(syntheticRecord(2).id)).toBeCloseTo(0.1 + 0.8 * 1.5, 6);
    expect(score.get(syntheticRecord(4).id)).toBeCloseTo(0.1 + 0.4 * 1.5, 6);
    expect(lifted.map((h) => h.record.id)).toEqual([3, 1, 2, 4, 9].map((i) => syntheticRecord(i).id));
  });

  it("takes any script's closing question mark as a question, and nothing else", () => {
    const lifted = withContext([said(1, "ça va\uFF1F\n", 1), said(2, "Really?!", 1), said(3, "¿Qué", 1), said(4, "لماذا\u061F", 1)], 4, 4);
    const score = new Map(lifted.map((h) => [h.record.id, h.score]));
    expect([1, 2, 3, 4].map((i) => score.get(syntheticRecord(i).id)! < 1)).toEqual([true, false, false, true]);
  });

  it("lets a candidate below the lifters neither lift nor stand between two neighbours, so a lane's tie cannot move the order", () => {
    // 2, stored between 1 and 3, is the weakest: with two lifters, 3's neighbour is 1 and the floor is 3's own score.
    const ranked = [at(1, "s", 1.5), at(3, "s", 0.5), at(9, "o", 0.45), at(2, "s", 0)];
    const lifted = withContext(ranked, 2, 4);
    // Scores are float32, as the wire carries them.
    expect(lifted.map((h) => [h.record.id, h.score])).toEqual([
      [syntheticRecord(1).id, 1.5],
      [syntheticRecord(3).id, Math.fround(0.5 + 0.4 * 1.0)],
      [syntheticRecord(9).id, Math.fround(0.45)],
      [syntheticRecord(2).id, Math.fround(0 + 0.4 * 1.0)],
    ]);
    // Without 2 among the candidates, 1 and 3 rank exactly as they did.
    const without = withContext(ranked.filter((h) => h.record.id !== syntheticRecord(2).id), 2, 3);
    expect(without.map((h) => h.score)).toEqual(lifted.slice(0, 3).map((h) => h.score));
  });

  it("still lifts the answer twice when a candidate below the lifters was stored between it and the question", () => {
    const ranked = [said(1, "Which package manager?", 1.5), said(3, "pnpm, always.", 0.5), said(2, "brb", 0)];
    const score = new Map(withContext(ranked, 2, 3).map((h) => [h.record.id, h.score]));
    expect(score.get(syntheticRecord(3).id)).toBeCloseTo(0.5 + 0.8 * 1.0, 6);
    // 2 is not a lifter, so it gains from the question as well but does not stand in the way.
    expect(score.get(syntheticRecord(2).id)).toBeCloseTo(0 + 0.8 * 1.0, 6);
  });
});
