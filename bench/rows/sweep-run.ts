/**
 * The operator-sweeps bench's timed part, in a process of its own: bundled
 * with dist/'s options (scripts/build.mjs bundleOptions) next to the sweep
 * worker's entry and run by plain node, so the sweep, its worker thread
 * included, runs the JavaScript the CLI ships rather than the TypeScript
 * sources through tsx (which a worker thread would boot again for itself).
 * Each sweep runs as the verb does, minus the process: withOperatorStore
 * opens the store over ENGRAM_DATA_DIR (the file's check alongside), the
 * runner sweeps it at the CLI's batch size, and the store closes, its final
 * WAL checkpoint included. Migrates, then reverts to 1; with
 * ENGRAM_BENCH_SWEEP_ORDER=revert-first, reverts first. Prints one JSON line.
 */
import { SCHEMA_SWEEP_BATCH_SIZE, SWEEP_CHECK, withOperatorStore } from "../../src/operator-cli/index.js";
import { migrate, revert } from "../../src/store/migrations/index.js";
import { CURRENT_SCHEMA_VERSION } from "../../src/store/schema-version.js";
import { timed } from "./timed-run.js";

const env = { ENGRAM_DATA_DIR: process.env.ENGRAM_DATA_DIR };
// Loads the operator modules once, so the timed runs measure the sweep, not the imports.
await withOperatorStore(() => undefined, env);
const migrateUp = () =>
  timed(() => withOperatorStore(({ store }) => migrate(store, { target: CURRENT_SCHEMA_VERSION, apply: true, batch: SCHEMA_SWEEP_BATCH_SIZE }), env, SWEEP_CHECK));
const revertDown = () => timed(() => withOperatorStore(({ store }) => revert(store, { to: 1, apply: true, batch: SCHEMA_SWEEP_BATCH_SIZE }), env, SWEEP_CHECK));
// A store already at the current version (the growth curve's) is reverted first, so the migration then has every record to do.
const revertFirst = process.env.ENGRAM_BENCH_SWEEP_ORDER === "revert-first";
const down = revertFirst ? await revertDown() : undefined;
const up = await migrateUp();
const after = down ?? (await revertDown());
process.stdout.write(`${JSON.stringify({ up, down: after })}\n`);
