import { describe, expect, it } from "vitest";
import { parseLocomo } from "../bench/recall/locomo.js";
import { PlainBm25 } from "../bench/recall/plain-bm25.js";
import { hitAt, recallAt, score } from "../bench/recall/scoring.js";

/** A conversation in the benchmark's shape, small enough to check every figure by hand. */
const TOY = [
  {
    sample_id: "toy",
    conversation: {
      speaker_a: "Ann",
      speaker_b: "Bo",
      session_1_date_time: "1:00 pm on 1 May, 2023",
      session_1: [
        { speaker: "Ann", dia_id: "D1:1", text: "I adopted a grey cat named Miso." },
        { speaker: "Bo", dia_id: "D1:2", text: "Lovely! I went hiking in the Alps.", blip_caption: "a photo of a mountain" },
      ],
      session_2_date_time: "2:00 pm on 9 May, 2023",
      session_2: [{ speaker: "Ann", dia_id: "D2:1", text: "Miso broke a vase today." }],
    },
    qa: [
      { question: "What is the name of Ann's cat?", answer: "Miso", evidence: ["D1:1"], category: 4 },
      { question: "What did Miso do?", answer: "broke a vase", evidence: ["D1:1; D2:1"], category: 1 },
      { question: "Where did Bo hike?", answer: "the Alps", evidence: ["D9:9"], category: 2 },
      { question: "Is this adversarial?", answer: "", evidence: [], category: 5 },
    ],
  },
];

describe("the recall benchmark", () => {
  it("stores every turn with its speaker, its session's date and its image caption, in the conversation's scope", () => {
    const b = parseLocomo(TOY);
    expect(b.turns).toEqual([
      { scope: "locomo:toy", diaId: "D1:1", content: "Ann (1:00 pm on 1 May, 2023): I adopted a grey cat named Miso." },
      { scope: "locomo:toy", diaId: "D1:2", content: "Bo (1:00 pm on 1 May, 2023): Lovely! I went hiking in the Alps. [image: a photo of a mountain]" },
      { scope: "locomo:toy", diaId: "D2:1", content: "Ann (2:00 pm on 9 May, 2023): Miso broke a vase today." },
    ]);
  });

  it("asks categories 1-4 only, splits joined evidence ids and leaves out a question whose evidence names no turn", () => {
    const b = parseLocomo(TOY);
    expect(b.questions.map((q) => [q.category, q.evidence])).toEqual([
      [4, ["D1:1"]],
      [1, ["D1:1", "D2:1"]],
    ]);
    expect(b.skipped).toBe(1);
  });

  it("computes recall as the share of evidence found and hit as finding any, per cutoff", () => {
    const a = { category: 1, evidence: ["D1:1", "D2:1"], ranked: ["D1:2", "D2:1", ...Array.from({ length: 8 }, (_, i) => `x${i}`), "D1:1"] };
    expect([recallAt(a, 1), recallAt(a, 2), recallAt(a, 10), recallAt(a, 11)]).toEqual([0, 0.5, 0.5, 1]);
    expect([hitAt(a, 1), hitAt(a, 2)]).toEqual([0, 1]);
    const rows = score([a, { category: 4, evidence: ["D1:1"], ranked: ["D1:1"] }]);
    expect(rows.map((r) => [r.label, r.questions, r.recall, r.hit])).toEqual([
      ["multi-hop", 1, [0.5, 0.5, 1], [1, 1, 1]],
      ["single-hop", 1, [1, 1, 1], [1, 1, 1]],
      ["overall", 2, [0.75, 0.75, 1], [1, 1, 1]],
    ]);
  });

  it("ranks the BM25 reference line by rare shared words within one scope", () => {
    const b = parseLocomo(TOY);
    const bm25 = new PlainBm25([...b.turns.map((t) => ({ scope: t.scope, id: t.diaId, text: t.content })), { scope: "other", id: "O:1", text: "Miso soup" }]);
    expect(bm25.search("locomo:toy", "what did miso break", 5)).toEqual(["D2:1", "D1:1"]);
    expect(bm25.search("locomo:toy", "alps", 5)).toEqual(["D1:2"]);
    expect(bm25.search("locomo:toy", "nothing shared", 5)).toEqual([]);
  });
});
