import { Option, type Command } from "commander";
import { type OutputMode, progressFor, type ProgressMode, ProgressReporter, table, writeDocument } from "../cli-kit/index.js";
import type { Embedder } from "../embed/embedder.js";
import { EXIT, RULES } from "../argerror/index.js";
import type { ReindexProgress, ReindexReport } from "../operator/index.js";
import { addBatchSizeFlag, addOutputFlag, batchSize, checkApplyDryRun, Deadline, failure, outputMode, parseSweepTimeout, SweepTimeoutError } from "./common.js";
import { qdrantConnectionOf, qdrantFailure, requireQdrantCollection, withOperatorStore } from "./store.js";
import { dataDirOf } from "../data-dir.js";

/**
 * `engram reindex`: re-embed every record with the embedder the environment
 * now configures, so a server refused with "run `engram reindex`" starts
 * again. Previews unless --apply; resumable after any interruption.
 */

export const DEFAULT_REINDEX_TIMEOUT = "30m";

type ReindexFlags = { apply?: boolean; dryRun?: boolean; output?: OutputMode; timeout?: string; batchSize?: bigint };

export function reindexText(r: ReindexReport): string {
  const head = r.dry_run
    ? r.pending === 0
      ? `preview: every record is already embedded by ${r.to_identity}; nothing to reindex`
      : `preview: ${r.pending} of ${r.records} record(s) would be re-embedded with ${r.to_identity}; nothing was written (run \`engram reindex --apply\`)`
    : `re-embedded ${r.reembedded} record(s) with ${r.to_identity}; the server now starts on it`;
  const rows: [string, string][] = [
    ["dry_run", String(r.dry_run)],
    ["from_identity", r.from_identity],
    ["to_identity", r.to_identity],
    ["records", String(r.records)],
    ["pending", String(r.pending)],
    ["reembedded", String(r.reembedded)],
    ["already_done", String(r.already_done)],
  ];
  return [head, "", table(["FIELD", "VALUE"], rows)].join("\n");
}

async function runReindex(o: ReindexFlags): Promise<void> {
  checkApplyDryRun(o);
  const output = outputMode(o.output);
  const run: RunSettings = {
    apply: o.apply === true,
    batch: batchSize(o.batchSize),
    timeoutMs: parseSweepTimeout(o.timeout ?? DEFAULT_REINDEX_TIMEOUT),
    progress: progressFor(o.apply === true),
  };
  const report = process.env.ENGRAM_QDRANT_URL ? await runOnQdrant(run, process.env) : await runOnEmbedded(run);
  writeDocument(output, report, () => reindexText(report));
}

type RunSettings = { apply: boolean; batch: number; timeoutMs: number; progress: ProgressMode };

/** The progress lines and the --timeout budget, the same on both stores. */
function loopHooks(run: RunSettings) {
  const reporter = new ProgressReporter(run.progress, "reembedded");
  const deadline = new Deadline(run.timeoutMs, "reembedded");
  const hooks = {
    last: { done: 0, total: 0 } as ReindexProgress,
    /** Whether the run has written anything: the first progress call comes after the marker (embedded) or the next generation (Qdrant). */
    started: false,
    /** Qdrant: the alias has moved to the next generation. */
    switched: false,
    onProgress: (p: ReindexProgress) => {
      hooks.started = true;
      hooks.last = p;
      reporter.update(p.done, p.total);
    },
    between: () => {
      if (deadline.expired()) throw new SweepTimeoutError("reembedded");
    },
    finish: () => reporter.finish(),
  };
  return hooks;
}

async function runOnEmbedded(run: RunSettings): Promise<ReindexReport> {
  const { reindex } = await import("../operator/reindex.js");
  return withOperatorStore(async ({ store, deps }) => {
    const hooks = loopHooks(run);
    try {
      return await reindex(store, deps.embedder, { apply: run.apply, batch: run.batch, dataDir: dataDirOf(process.env), onProgress: hooks.onProgress, between: hooks.between });
    } catch (err) {
      if (err instanceof SweepTimeoutError) {
        throw failure(
          EXIT.timeout,
          `--timeout ran out; the ${hooks.last.done} record(s) re-embedded in committed batches stay done; run \`engram reindex --apply\` again to continue`,
        );
      }
      if (err instanceof Error && err.name === "EmbedderError") {
        // The first batch is embedded before the marker is written, so an embedder that never answered changed nothing.
        throw failure(
          EXIT.unavailable,
          hooks.started
            ? `${err.message}; the ${hooks.last.done} record(s) re-embedded in committed batches stay done, and until a run finishes no embedder configuration can serve the store; run \`engram reindex --apply\` again to continue`
            : `${err.message}; nothing was written and the store is as it was`,
        );
      }
      throw err;
    } finally {
      hooks.finish();
      // A worker-backed embedder holds threads open; let the process end.
      await (deps.embedder as { close?: () => Promise<void> | void }).close?.();
    }
  });
}

/**
 * With ENGRAM_QDRANT_URL set: the collection behind the alias is copied into
 * the next generation and the alias moved (docs/qdrant.md, "Reindex"). The
 * collection is opened without the dimension check `engram serve` makes,
 * since another dimension is exactly what a reindex is for.
 */
async function runOnQdrant(run: RunSettings, env: NodeJS.ProcessEnv): Promise<ReindexReport> {
  const [{ reindexQdrant }, { embedderFromEnv }] = await Promise.all([import("../operator/reindex-qdrant.js"), import("../embed/index.js")]);
  let embedder: Embedder;
  try {
    embedder = embedderFromEnv(env);
  } catch (err) {
    throw failure(EXIT.usage, err instanceof Error ? err.message : String(err));
  }
  const hooks = loopHooks(run);
  try {
    await requireQdrantCollection(env, run.apply ? "write" : "read");
    return await reindexQdrant(
      qdrantConnectionOf(env),
      embedder,
      {
        apply: run.apply,
        batch: run.batch,
        onProgress: hooks.onProgress,
        between: hooks.between,
        onPhase: (phase) => {
          if (phase === "switched") hooks.switched = true;
        },
      },
    );
  } catch (err) {
    if (err instanceof SweepTimeoutError) {
      throw failure(
        EXIT.timeout,
        `--timeout ran out; the ${hooks.last.done} record(s) re-embedded into the next generation stay there and servers still serve the old one; run \`engram reindex --apply\` again to continue`,
      );
    }
    if (err instanceof Error && err.name === "EmbedderError" && !hooks.switched) {
      // As on the embedded store: the first batch is embedded before the next generation is made.
      throw failure(
        EXIT.unavailable,
        hooks.started
          ? `${err.message}; the ${hooks.last.done} record(s) re-embedded into the next generation stay there and servers still serve the old one; run \`engram reindex --apply\` again to continue`
          : `${err.message}; nothing was written and the store is as it was`,
      );
    }
    throw qdrantFailure(err);
  } finally {
    hooks.finish();
    await (embedder as { close?: () => Promise<void> | void }).close?.();
  }
}


export function registerOperatorReindex(program: Command): void {
  const cmd = program
    .command("reindex")
    .summary("re-embed every record with the configured embedder (preview unless --apply)")
    .description(
      "Re-embed every record with the embedder the environment configures now, and record its identity, so the server " +
        "starts on it: the store under ENGRAM_DATA_DIR, or the Qdrant collection when ENGRAM_QDRANT_URL is set. " +
        `Without --apply it only counts what would change: ${RULES["destructive-requires-apply"].sentence}. ` +
        "The first batch is embedded before anything is written, so an embedder that cannot answer changes nothing (exit 5). " +
        "On the embedded store an interrupted run leaves it refused by both embedders; run it again to finish. " +
        "On Qdrant it fills the collection's next generation beside the one servers keep serving and moves the alias " +
        "there in one switch when every record is copied; an interrupted run changes nothing servers see, and a rerun continues it.",
    )
    .option("--apply", "write: re-embed instead of previewing")
    .option("--dry-run", "preview explicitly (the default); cannot be combined with --apply");
  addOutputFlag(cmd);
  cmd.addOption(
    new Option("--timeout <duration>", "wall-clock budget for the re-embedding loop, e.g. 30s, 5m, 1h; 0 disables it").default(DEFAULT_REINDEX_TIMEOUT),
  );
  addBatchSizeFlag(cmd);
  cmd.action(async (o: ReindexFlags) => runReindex(o));
}
