/**
 * `npm run bench:recall`: recall on a LoCoMo-format benchmark through the
 * real server, with a plain BM25 over the same texts as the reference line.
 *
 *   --data <file>        the benchmark (default ../shared/data/locomo/locomo-dev.json)
 *   --k <n>              hits asked per question (default 25)
 *   --concurrency <n>    stores in flight while ingesting (default 4)
 *
 * Every turn is stored through Connect as one memory, in scope
 * `locomo:<sample_id>`; every question of categories 1-4 is asked with
 * SearchMemories in its conversation's scope. Prints recall@5/10/25 and
 * hit@5/10/25 per category and overall for engram and for the BM25 line,
 * recall@10 per conversation with its spread, the ingestion rate and the
 * search latency (p50/p95, embedding included), and each turn searched by
 * its own content (the share that comes first). Then the small stores
 * (small-stores.ts): each session a store of its own, in process with the
 * same local model, hit@1, recall@3 and MRR beside BM25 over its turns.
 *
 *   --small-stores no    leaves that section out
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import { parseLocomo, type Question } from "./locomo.js";
import { perConversation } from "./per-conversation.js";
import { PlainBm25 } from "./plain-bm25.js";
import { runSmallStores, smallStores, type RankFigures } from "./small-stores.js";
import { sharedLocalEmbedder } from "../../src/embed/index.js";
import { CUTOFFS, score, type Answer, type Row } from "./scoring.js";
import { startServer } from "./server-process.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data/locomo/locomo-dev.json" },
    k: { type: "string", default: "25" },
    concurrency: { type: "string", default: "4" },
    "small-stores": { type: "string", default: "yes" },
  },
});
const k = Number(values.k);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(k) || k < 25 || k > 1000) throw new Error("--k must be an integer from 25 to 1000");
if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("--concurrency must be a positive integer");

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function table(title: string, rows: readonly Row[]): string {
  const head = `| ${title} | questions | ${CUTOFFS.map((c) => `recall@${c}`).join(" | ")} | ${CUTOFFS.map((c) => `hit@${c}`).join(" | ")} |`;
  const rule = `|---|---|${CUTOFFS.map(() => "---|").join("")}${CUTOFFS.map(() => "---|").join("")}`;
  const lines = rows.map((r) => `| ${r.label} | ${r.questions} | ${[...r.recall, ...r.hit].map((x) => x.toFixed(3)).join(" | ")} |`);
  return [head, rule, ...lines].join("\n");
}

async function main(): Promise<void> {
  const file = resolve(values.data);
  const bench = parseLocomo(JSON.parse(readFileSync(file, "utf8")));
  console.log(`${bench.turns.length} turns, ${bench.questions.length} questions (${bench.skipped} without evidence left out) from ${file}`);

  const server = await startServer();
  try {
    const client = createClient(EngramService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));
    const turnOf = new Map<string, string>();
    const started = performance.now();
    let next = 0;
    let stored = 0;
    const worker = async () => {
      for (let i = next++; i < bench.turns.length; i = next++) {
        const t = bench.turns[i]!;
        const res = await client.storeMemory({ content: t.content, scope: t.scope, source: "user-said", category: "preference" });
        turnOf.set(res.id, t.diaId);
        if (++stored % 500 === 0) console.log(`stored ${stored}/${bench.turns.length}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;

    const latencies: number[] = [];
    const engram: Answer[] = [];
    const ask = async (q: Question) => {
      const t0 = performance.now();
      const res = await client.searchMemories({ query: q.question, scope: q.scope, k: BigInt(k) });
      latencies.push(performance.now() - t0);
      return res.memories.map((m) => turnOf.get(m.id) ?? "");
    };
    for (const q of bench.questions) engram.push({ category: q.category, evidence: q.evidence, ranked: await ask(q) });
    const byScope = engram.map((a, i) => ({ ...a, scope: bench.questions[i]!.scope }));

    const bm25 = new PlainBm25(bench.turns.map((t) => ({ scope: t.scope, id: t.diaId, text: t.content })));
    const reference: Answer[] = bench.questions.map((q) => ({ category: q.category, evidence: q.evidence, ranked: bm25.search(q.scope, q.question, k) }));

    latencies.sort((a, b) => a - b);
    const ours = score(engram);
    const theirs = score(reference);
    console.log(`\n${table("engram", ours)}\n\n${table("plain BM25", theirs)}\n`);
    const overall = (rows: Row[]) => rows[rows.length - 1]!;
    console.log(`recall@10 over BM25: ${(overall(ours).recall[1]! - overall(theirs).recall[1]!).toFixed(3)}`);
    console.log(`ingestion: ${(bench.turns.length / seconds).toFixed(1)} turns/s with ${concurrency} in flight (${bench.turns.length} in ${seconds.toFixed(1)} s)`);
    console.log(`search through Connect, embedding included: p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms over ${latencies.length} questions`);
    const conversations = perConversation(byScope);
    console.log(`\n| conversation | questions | recall@10 | hit@10 |\n|---|---|---|---|`);
    for (const r of conversations.rows) console.log(`| ${r.scope} | ${r.questions} | ${r.recall10.toFixed(3)} | ${r.hit10.toFixed(3)} |`);
    console.log(`recall@10 spread between conversations: ${conversations.spread.toFixed(3)}`);

    // Every turn searched by its own content in its scope: the record holding it (or a turn
    // with the very same content) must come first.
    const contentOf = new Map(bench.turns.map((t) => [`${t.scope} ${t.diaId}`, t.content]));
    const same = (t: (typeof bench.turns)[number], id: string | undefined) => id !== undefined && contentOf.get(`${t.scope} ${id}`) === t.content;
    const exact = new Map<string, { asked: number; first: number; top3: number }>();
    for (const t of bench.turns) {
      const res = await client.searchMemories({ query: t.content, scope: t.scope, k: 3n });
      const ranked = res.memories.map((m) => turnOf.get(m.id) ?? "");
      const row = exact.get(t.scope) ?? { asked: 0, first: 0, top3: 0 };
      row.asked++;
      if (same(t, ranked[0])) row.first++;
      if (ranked.some((id) => same(t, id))) row.top3++;
      exact.set(t.scope, row);
    }
    console.log(`\n| each turn searched by its own content | turns | first | in the top 3 |\n|---|---|---|---|`);
    const all = { asked: 0, first: 0, top3: 0 };
    for (const [scope, r] of [...exact].sort(([a], [b]) => a.localeCompare(b))) {
      console.log(`| ${scope} | ${r.asked} | ${(r.first / r.asked).toFixed(3)} | ${(r.top3 / r.asked).toFixed(3)} |`);
      all.asked += r.asked;
      all.first += r.first;
      all.top3 += r.top3;
    }
    console.log(`| all | ${all.asked} | ${(all.first / all.asked).toFixed(3)} | ${(all.top3 / all.asked).toFixed(3)} |`);
  } finally {
    await server.stop();
  }
  if (values["small-stores"] !== "no") {
    const stores = smallStores(bench);
    const embedder = sharedLocalEmbedder();
    try {
      const r = await runSmallStores(stores, embedder);
      const line = (name: string, f: RankFigures) => `| ${name} | ${f.questions} | ${f.hit1.toFixed(3)} | ${f.recall3.toFixed(3)} | ${f.mrr.toFixed(3)} |`;
      console.log(`\nsmall stores: ${r.stores} sessions, each a store of its own (${r.turns} turns), asked the questions whose evidence lies wholly in it`);
      console.log(`| small stores | questions | hit@1 | recall@3 | MRR |\n|---|---|---|---|---|\n${line("engram", r.engram)}\n${line("plain BM25", r.bm25)}`);
    } finally {
      await embedder.close();
    }
  }
}

await main();
