/**
 * Small stores: each session of a LoCoMo conversation as a store of its own
 * (a project's first notes, an agent's first day), asked the questions
 * whose evidence lies wholly in that session. A store of twenty turns
 * cannot tell a common word from a rare one by its own counts; this section
 * shows how recall fares there, beside plain BM25 over the same turns.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCore, DEFAULT_LIMITS, silentLogger } from "../../src/core/index.js";
import type { Embedder } from "../../src/embed/embedder.js";
import { ANONYMOUS } from "../../src/model/subject.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import type { Benchmark, Question, Turn } from "./locomo.js";
import { PlainBm25 } from "./plain-bm25.js";

/** One session as a store: its turns in order and the questions it alone answers. */
export type SmallStore = { name: string; turns: Turn[]; questions: Question[] };

/** The session a turn belongs to, from its dialog id (`D3:7` is turn 7 of session 3). */
export function sessionOf(t: Turn): string {
  return `${t.scope}/${t.diaId.split(":")[0]}`;
}

/** Every session with at least one question whose evidence turns all lie in it. */
export function smallStores(bench: Benchmark): SmallStore[] {
  const stores = new Map<string, SmallStore>();
  const home = new Map<string, string>();
  for (const t of bench.turns) {
    const name = sessionOf(t);
    if (!stores.has(name)) stores.set(name, { name, turns: [], questions: [] });
    stores.get(name)!.turns.push(t);
    home.set(`${t.scope} ${t.diaId}`, name);
  }
  for (const q of bench.questions) {
    const names = new Set(q.evidence.map((e) => home.get(`${q.scope} ${e}`)));
    if (names.size === 1) stores.get([...names][0]!)!.questions.push(q);
  }
  return [...stores.values()].filter((s) => s.questions.length > 0);
}

export type RankFigures = { questions: number; hit1: number; recall3: number; mrr: number };

/** hit@1, recall@3 and mean reciprocal rank of the first evidence turn (0 when none is returned). */
export function rankFigures(answers: readonly { evidence: readonly string[]; ranked: readonly string[] }[]): RankFigures {
  const n = answers.length;
  const mean = (f: (a: (typeof answers)[number]) => number) => (n === 0 ? 0 : answers.reduce((s, a) => s + f(a), 0) / n);
  return {
    questions: n,
    hit1: mean((a) => (a.evidence.includes(a.ranked[0] ?? "") ? 1 : 0)),
    recall3: mean((a) => a.evidence.filter((e) => a.ranked.slice(0, 3).includes(e)).length / a.evidence.length),
    mrr: mean((a) => {
      const at = a.ranked.findIndex((id) => a.evidence.includes(id));
      return at < 0 ? 0 : 1 / (at + 1);
    }),
  };
}

/** Embeds each distinct text once however many stores store or ask it. */
class CachedEmbedder implements Embedder {
  private readonly kept = new Map<string, Promise<Float32Array>>();
  constructor(private readonly inner: Embedder) {}
  get identity() {
    return this.inner.identity;
  }
  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((t) => !this.kept.has(t)))];
    if (missing.length > 0) {
      const done = this.inner.embedDocuments(missing);
      missing.forEach((t, i) => this.kept.set(t, done.then((v) => v[i]!)));
    }
    return Promise.all(texts.map((t) => this.kept.get(t)!));
  }
  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.embedDocuments([text]))[0]!;
  }
}

/**
 * Each small store as an embedded store of its own in a fresh directory,
 * its turns stored through the core one second apart (so storage order is
 * turn order), its questions searched at k 10; and plain BM25 over the same
 * turns alone. Turns are embedded up front, 64 to a call.
 */
export async function runSmallStores(stores: readonly SmallStore[], embedder: Embedder): Promise<{ engram: RankFigures; bm25: RankFigures; stores: number; turns: number }> {
  const cached = new CachedEmbedder(embedder);
  const texts = stores.flatMap((s) => [...s.turns.map((t) => t.content), ...s.questions.map((q) => q.question)]);
  for (let i = 0; i < texts.length; i += 64) await cached.embedDocuments(texts.slice(i, i + 64));
  const ours: { evidence: string[]; ranked: string[] }[] = [];
  const theirs: { evidence: string[]; ranked: string[] }[] = [];
  for (const s of stores) {
    const dir = mkdtempSync(join(tmpdir(), "engram-small-store-"));
    const store = EmbeddedStore.open({ dataDir: dir, dim: embedder.identity.dim });
    let clock = Date.parse("2026-01-01T00:00:00.000Z");
    const core = createCore({ store, embedder: cached, limits: DEFAULT_LIMITS, now: () => new Date((clock += 1000)), log: silentLogger });
    try {
      const turnOf = new Map<string, string>();
      for (const t of s.turns) turnOf.set((await core.storeMemory(ANONYMOUS, { content: t.content, scope: t.scope, source: "user-said", category: "preference" })).id, t.diaId);
      const bm25 = new PlainBm25(s.turns.map((t) => ({ scope: t.scope, id: t.diaId, text: t.content })));
      for (const q of s.questions) {
        const { memories } = await core.searchMemories(ANONYMOUS, { query: q.question, scope: q.scope, k: 10 }, "connect");
        ours.push({ evidence: q.evidence, ranked: memories.map((m) => turnOf.get(m.id) ?? "") });
        theirs.push({ evidence: q.evidence, ranked: bm25.search(q.scope, q.question, 10) });
      }
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { engram: rankFigures(ours), bm25: rankFigures(theirs), stores: stores.length, turns: stores.reduce((n, s) => n + s.turns.length, 0) };
}
