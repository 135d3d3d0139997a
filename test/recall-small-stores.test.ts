import { describe, expect, it } from "vitest";
import { parseLocomo } from "../bench/recall/locomo.js";
import { perConversation } from "../bench/recall/per-conversation.js";
import { rankFigures, runSmallStores, smallStores } from "../bench/recall/small-stores.js";
import { FakeEmbedder } from "../src/embed/fake-embedder.js";

/** Two sessions in the benchmark's shape: one question answered in each, one needing both. */
const TOY = [
  {
    sample_id: "toy",
    conversation: {
      session_1_date_time: "1:00 pm on 1 May, 2023",
      session_1: [
        { speaker: "Ann", dia_id: "D1:1", text: "I adopted a grey cat named Miso." },
        { speaker: "Bo", dia_id: "D1:2", text: "Lovely! I went hiking in the Alps." },
      ],
      session_2_date_time: "2:00 pm on 9 May, 2023",
      session_2: [
        { speaker: "Ann", dia_id: "D2:1", text: "Miso broke a vase today." },
        { speaker: "Bo", dia_id: "D2:2", text: "My violin lesson moved to Friday." },
      ],
    },
    qa: [
      { question: "Where did Bo go hiking?", answer: "the Alps", evidence: ["D1:2"], category: 4 },
      { question: "What did Miso break?", answer: "a vase", evidence: ["D2:1"], category: 4 },
      { question: "What did Ann's grey cat break?", answer: "a vase", evidence: ["D1:1", "D2:1"], category: 1 },
    ],
  },
];

describe("the recall benchmark's small stores", () => {
  it("makes each session a store of its own, asked only the questions whose evidence lies wholly in it", () => {
    const stores = smallStores(parseLocomo(TOY));
    expect(stores.map((s) => [s.name, s.turns.map((t) => t.diaId), s.questions.map((q) => q.question)])).toEqual([
      ["locomo:toy/D1", ["D1:1", "D1:2"], ["Where did Bo go hiking?"]],
      ["locomo:toy/D2", ["D2:1", "D2:2"], ["What did Miso break?"]],
    ]);
  });

  it("scores hit@1, recall@3 and the reciprocal rank of the first evidence turn found", () => {
    const f = rankFigures([
      { evidence: ["a"], ranked: ["a", "b"] },
      { evidence: ["a", "b"], ranked: ["x", "b", "y", "a"] },
      { evidence: ["a"], ranked: ["x"] },
    ]);
    expect(f.questions).toBe(3);
    expect(f.hit1).toBeCloseTo(1 / 3, 9);
    expect(f.recall3).toBeCloseTo((1 + 0.5 + 0) / 3, 9);
    expect(f.mrr).toBeCloseTo((1 + 0.5 + 0) / 3, 9);
  });

  it("reports recall@10 per conversation and the spread between the weakest and the strongest", () => {
    const { rows, spread } = perConversation([
      { scope: "b", category: 4, evidence: ["x"], ranked: ["x"] },
      { scope: "a", category: 4, evidence: ["x", "y"], ranked: ["x"] },
      { scope: "b", category: 4, evidence: ["x"], ranked: [] },
    ]);
    expect(rows.map((r) => [r.scope, r.questions, r.recall10, r.hit10])).toEqual([
      ["a", 1, 0.5, 1],
      ["b", 2, 0.5, 0.5],
    ]);
    expect(spread).toBe(0);
  });

  it("runs each small store through the engine and plain BM25 over the same turns", async () => {
    const r = await runSmallStores(smallStores(parseLocomo(TOY)), new FakeEmbedder(64));
    expect([r.stores, r.turns, r.engram.questions, r.bm25.questions]).toEqual([2, 4, 2, 2]);
    expect(r.engram.hit1).toBe(1);
    expect(r.bm25.hit1).toBe(1);
  });
});
