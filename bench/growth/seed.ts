/**
 * Grows one data directory from the size it holds to the next size of the
 * curve by direct writes into the store, 5,000 records a transaction (the
 * operator-sweeps seed's way: no server, no embedding), then lets the store
 * catch its vector index up and build the graph, and closes it, which saves
 * the index snapshot a server that ran before would have left.
 *
 * The sizes are nested (record i is the same at every size), so the 1M store
 * is the 100k one grown, and only the new records are written each time.
 */
import { performance } from "node:perf_hooks";
import { identityKey, LOCAL_IDENTITY } from "../../src/embed/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { META_EMBEDDER_IDENTITY } from "../../src/store/index.js";
import { GROWTH_DIM, growthRecord } from "./records.js";

const BATCH = 5000;
const PROGRESS_EVERY = 100_000;

export type SeedTiming = { writeS: number; indexS: number };

export async function growTo(dir: string, from: number, to: number, nextVector: () => Float32Array): Promise<SeedTiming> {
  const store = EmbeddedStore.open({ dataDir: dir, dim: GROWTH_DIM });
  // As the server's first start records it: the export then names the local model, and an import into the same model re-embeds nothing.
  if (from === 0) await store.setMeta(META_EMBEDDER_IDENTITY, identityKey(LOCAL_IDENTITY));
  let t = performance.now();
  for (let start = from; start < to; start += BATCH) {
    const end = Math.min(to, start + BATCH);
    store.transaction(() => {
      for (let i = start; i < end; i++) store.writeRecord(growthRecord(i), nextVector());
    });
    if (Math.floor(end / PROGRESS_EVERY) > Math.floor(start / PROGRESS_EVERY)) {
      process.stderr.write(`  seeded ${end.toLocaleString("en-US")} of ${to.toLocaleString("en-US")} records\n`);
    }
  }
  const writeS = (performance.now() - t) / 1000;
  t = performance.now();
  await store.warm();
  await store.close();
  return { writeS, indexS: (performance.now() - t) / 1000 };
}
