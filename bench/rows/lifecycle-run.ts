/**
 * The lifecycle-sweeps bench's timed part, in a process of its own, bundled
 * with dist/'s options like sweep-run.ts so what is timed is the JavaScript
 * the CLI ships. Each verb runs as the CLI runs it, minus the process and
 * the report's printing: withServingStore opens the store over
 * ENGRAM_DATA_DIR (the file's check alongside),
 * the operator function sweeps it, and the store closes. Prints one JSON line.
 *
 *   ENGRAM_BENCH_LIFECYCLE=sweeps       prune-expired --apply, then spine-review purge --class superseded,archived --apply
 *   ENGRAM_BENCH_LIFECYCLE=consolidate  spine-review consolidate --all-scopes (top-k 5)
 */
import { SWEEP_CHECK, withServingStore } from "../../src/operator-cli/index.js";
import { consolidate } from "../../src/operator/consolidate.js";
import { pruneExpired } from "../../src/operator/prune-expired.js";
import { purge } from "../../src/operator/purge.js";
import { timed } from "./timed-run.js";

const env = { ENGRAM_DATA_DIR: process.env.ENGRAM_DATA_DIR };
const nowS = () => Math.floor(Date.now() / 1000);
// Loads the operator modules once, so the timed runs measure the sweep, not the imports.
await withServingStore(async () => undefined, env);

if (process.env.ENGRAM_BENCH_LIFECYCLE === "consolidate") {
  const run = await timed(() => withServingStore(({ store }) => consolidate(store, { topK: 5, now: nowS() }), env, SWEEP_CHECK));
  const { results, ...counts } = run.result;
  process.stdout.write(`${JSON.stringify({ consolidate: { ...run, result: { ...counts, top: results.slice(0, 3) } } })}\n`);
} else {
  const prune = await timed(() => withServingStore(({ store }) => pruneExpired(store, { olderThanS: 0, apply: true, now: nowS() }), env, SWEEP_CHECK));
  const purged = await timed(() =>
    withServingStore(({ store }) => purge(store, { classes: ["superseded", "archived"], tags: [], apply: true, now: nowS }), env, SWEEP_CHECK),
  );
  const { results: _rows, ...purgeCounts } = purged.result;
  process.stdout.write(`${JSON.stringify({ prune, purge: { ...purged, result: purgeCounts } })}\n`);
}
