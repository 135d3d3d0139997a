import type { Command } from "commander";
import { CliFailure, type OutputMode, progressFor, type ProgressMode, ProgressReporter, table, usageError, writeDocument } from "../cli-kit/index.js";
import { EXIT, RULES } from "../argerror/index.js";
import type { MigrationStatus } from "../core/migrate-status.js";
import type { MigrateReport, Progress, RevertReport } from "../store/migrations/index.js";
import { addBatchSizeFlag, addOutputFlag, addSweepTimeoutFlag, batchSize, Deadline, failure, outputMode, parseSweepTimeout, SCHEMA_SWEEP_BATCH_SIZE, SweepTimeoutError, flagRefusal } from "./common.js";
import { SWEEP_CHECK, withServingStore, type ServingStore } from "./store.js";

/**
 * `engram migrate`, `engram migrate status`, `engram migrate revert`: the
 * record schema's forward sweep, its histogram and its refusing revert,
 * run against the store directly. Everything that writes previews unless
 * --apply is given.
 */

const APPLY_RULE = RULES["destructive-requires-apply"].sentence;

type SweepFlags = { apply?: boolean; output?: OutputMode; timeout?: string; batchSize?: bigint };
type MigrateFlags = SweepFlags & { snapshot?: boolean };
type RevertFlags = SweepFlags & { to?: string };

// ---- --to ---------------------------------------------------------------------

/** `--to` as typed; every refusal here happens before the store is opened. */
export function parseRevertTarget(text: string | undefined, current: number): number {
  if (text === undefined) throw flagRefusal("--to", "required", "--to <v> is required");
  const t = text.trim();
  if (!/^\d+$/.test(t)) throw flagRefusal("--to", "format", "--to must be a non-negative integer version");
  const n = Number(t.replace(/^0+(?=\d)/, ""));
  // The current version is the binary's own; the number typed is never repeated.
  if (!Number.isSafeInteger(n) || n > current) {
    throw flagRefusal("--to", "out_of_range", `--to is above this binary's current target version (${current}); there is nothing to revert past it`);
  }
  return n;
}

// ---- documents ------------------------------------------------------------------

/** The forward report with its keys in the documented order. */
export function migrateDocument(r: MigrateReport): MigrateReport {
  return {
    target: r.target,
    dry_run: r.dry_run,
    would_migrate: r.would_migrate,
    migrated: r.migrated,
    failed: r.failed,
    passes: r.passes,
    backlog: r.backlog,
    spared: r.spared,
    appeared: r.appeared,
  };
}

/** The revert report with its keys in the documented order; `refusal` only when refused. */
export function revertDocument(r: RevertReport): RevertReport {
  const doc: RevertReport = {
    to: r.to,
    applied: r.applied,
    reversible: r.reversible,
    candidates: r.candidates,
    reverted: r.reverted,
    failed: r.failed,
    passes: r.passes,
    backlog: r.backlog,
  };
  if (r.refusal !== undefined) doc.refusal = r.refusal;
  return doc;
}

const fieldTable = (rows: [string, string | number | boolean][]) =>
  table(
    ["FIELD", "VALUE"],
    rows.map(([k, v]) => [k, String(v)]),
  );

export function migrateText(r: MigrateReport): string {
  const lines: string[] = [];
  if (r.dry_run) {
    lines.push(
      r.would_migrate === 0
        ? `preview: every record is at version ${r.target} or above; nothing to migrate`
        : `preview: ${r.would_migrate} record(s) below version ${r.target} would be migrated; nothing was written (run \`engram migrate --apply\`)`,
    );
  } else {
    lines.push(`migrated ${r.migrated} record(s) to version ${r.target} in ${r.passes} pass(es)`);
    if (r.failed > 0) lines.push(`${r.failed} write(s) failed; run \`engram migrate --apply\` again to retry them`);
    if (r.appeared > 0) {
      lines.push(`${r.appeared} record(s) fell below the target while this ran and were left alone; run \`engram migrate --apply\` again`);
    }
  }
  lines.push(
    "",
    fieldTable([
      ["target", r.target],
      ["dry_run", r.dry_run],
      ["would_migrate", r.would_migrate],
      ["migrated", r.migrated],
      ["failed", r.failed],
      ["passes", r.passes],
      ["backlog", r.backlog],
      ["spared", r.spared],
      ["appeared", r.appeared],
    ]),
  );
  return lines.join("\n");
}

export function statusText(s: MigrationStatus): string {
  return [
    fieldTable([
      ["current_version", s.current_version],
      ["total", s.total],
      ["pending", s.pending],
      ["absent", s.absent],
      ["future_total", s.future_total],
    ]),
    "",
    table(
      ["VERSION", "COUNT"],
      [
        ...(s.absent > 0 ? [["(absent, reads as 0)", String(s.absent)]] : []),
        ...s.buckets.map((b) => [String(b.version), String(b.count)]),
        ...s.future.map((b) => [`${b.version} (future)`, String(b.count)]),
      ],
    ),
  ].join("\n");
}

/**
 * The human view of a revert. `partial` marks a refusal raised inside the
 * write loop, after earlier batches may already have been reverted.
 */
export function revertText(r: RevertReport, partial: boolean): string {
  const lines: string[] = [];
  if (partial) {
    lines.push(
      r.reverted > 0
        ? `REFUSED during the write loop: the collection is PARTIALLY reverted — ${r.reverted} record(s) were reverted to version ${r.to} before a record that cannot be reverted appeared`
        : `REFUSED during the write loop: a record that cannot be reverted appeared; no record was reverted by this run, but other batches may have been — the collection may be PARTIALLY reverted`,
      "run `engram migrate status` to see the version distribution before re-running the revert, migrating forward again, or restoring the snapshot",
    );
  } else if (r.refusal !== undefined) {
    lines.push(`REFUSED: the ${r.candidates} record(s) above version ${r.to} cannot all be reverted; nothing was written`);
  } else if (r.applied) {
    lines.push(`reverted ${r.reverted} record(s) to version ${r.to} in ${r.passes} pass(es)`);
    if (r.failed > 0) lines.push(`${r.failed} write(s) failed; run the revert again to retry them`);
  } else {
    lines.push(
      r.candidates === 0
        ? `preview: no record is above version ${r.to}; nothing to revert`
        : `preview: ${r.candidates} record(s) above version ${r.to} can be reverted; nothing was written (run with --apply)`,
    );
  }
  const rows: [string, string | number | boolean][] = [
    ["to", r.to],
    ["applied", r.applied],
    ["reversible", r.reversible],
    ["candidates", r.candidates],
    ["reverted", r.reverted],
    ["failed", r.failed],
    ["passes", r.passes],
    ["backlog", r.backlog],
  ];
  lines.push("", fieldTable(rows));
  if (r.refusal !== undefined) lines.push("", `refusal: ${r.refusal}`);
  return lines.join("\n");
}

// ---- running ---------------------------------------------------------------------

/**
 * The loop's callback: draws progress and enforces --timeout. It runs after
 * each batch has committed, so stopping here never splits a batch.
 */
function loopHooks(verb: "migrated" | "reverted", mode: ProgressMode, timeoutMs: number) {
  const reporter = new ProgressReporter(mode, verb);
  const deadline = new Deadline(timeoutMs, verb);
  let last: Progress | undefined;
  return {
    reporter,
    last: () => last,
    onProgress: (p: Progress) => {
      last = p;
      reporter.update(p.done, p.backlog);
      // A budget that runs out with nothing left stopped nothing: the run reports as done.
      if (p.left > 0 && deadline.expired()) throw new SweepTimeoutError(verb);
    },
  };
}

function timeoutFailure(rerun: string, last: Progress | undefined, verb: string): CliFailure {
  const done = last?.done ?? 0;
  const passes = last?.pass ?? 0;
  return failure(
    EXIT.timeout,
    `--timeout ran out after ${passes} pass(es); the ${done} record(s) ${verb} in committed batches stay ${verb}; run \`${rerun}\` again to continue`,
  );
}

/**
 * On Qdrant, a snapshot of the physical collection before the first write
 * (the pin included), named on stderr. One that fails stops the run with
 * nothing written: exit 5, as the store being unreachable is. Qdrant's own
 * error text is not repeated; the fault's fixed text is.
 */
async function snapshotFirst(target: ServingStore): Promise<void> {
  if (!target.snapshot) return;
  let made: { collection: string; snapshot: string };
  try {
    made = await target.snapshot();
  } catch (err) {
    const why = (err as { unavailable?: unknown }).unavailable !== undefined ? (err as Error).message : "Qdrant refused the snapshot request";
    throw failure(
      EXIT.unavailable,
      `the Qdrant collection snapshot could not be made (${why}), so nothing was migrated; fix the snapshot storage and re-run, or pass --no-snapshot to migrate without one`,
    );
  }
  process.stderr.write(`engram: made snapshot ${made.snapshot} of Qdrant collection ${made.collection} before writing; recover the collection from it to undo this run\n`);
}

export async function runMigrate(o: MigrateFlags, sweep: { target?: number; rerun?: string } = {}): Promise<void> {
  const output = outputMode(o.output);
  const timeoutMs = parseSweepTimeout(o.timeout);
  const batch = batchSize(o.batchSize, SCHEMA_SWEEP_BATCH_SIZE);
  const apply = o.apply === true;
  const progress = progressFor(apply);
  const [{ migrate, MigrationStalledError }, { CURRENT_SCHEMA_VERSION }] = await Promise.all([
    import("../store/migrations/index.js"),
    import("../store/schema-version.js"),
  ]);
  const report = await withServingStore(async (target) => {
    if (apply && o.snapshot !== false) await snapshotFirst(target);
    // The clock (for the rate and for --timeout) starts once the store is open (and any snapshot made).
    const hooks = loopHooks("migrated", progress, timeoutMs);
    try {
      return await migrate(target.migrations, { target: sweep.target ?? CURRENT_SCHEMA_VERSION, apply, batch, onProgress: hooks.onProgress });
    } catch (err) {
      if (err instanceof MigrationStalledError) throw failure(EXIT.unclassified, err.message);
      if (err instanceof SweepTimeoutError) throw timeoutFailure(sweep.rerun ?? "engram migrate --apply", hooks.last(), "migrated");
      throw err;
    } finally {
      hooks.reporter.finish();
    }
  }, process.env, SWEEP_CHECK);
  writeDocument(output, migrateDocument(report), () => migrateText(report));
}

async function runStatus(o: { output?: OutputMode; timeout?: string }): Promise<void> {
  const output = outputMode(o.output);
  // Accepted (and checked) so the original CLI's scripts run unchanged; the histogram is one read.
  parseSweepTimeout(o.timeout);
  const { migrateStatus } = await import("../core/migrate-status.js");
  const status = await withServingStore(({ deps }) => migrateStatus(deps));
  writeDocument(output, status, () => statusText(status));
}

async function runRevert(o: RevertFlags): Promise<void> {
  const { CURRENT_SCHEMA_VERSION } = await import("../store/schema-version.js");
  const to = parseRevertTarget(o.to, CURRENT_SCHEMA_VERSION);
  const output = outputMode(o.output);
  const timeoutMs = parseSweepTimeout(o.timeout);
  const batch = batchSize(o.batchSize, SCHEMA_SWEEP_BATCH_SIZE);
  const apply = o.apply === true;
  const progress = progressFor(apply);
  const { revert, RevertRefusedError, MigrationStalledError } = await import("../store/migrations/index.js");
  const outcome = await withServingStore(async ({ migrations }) => {
    const hooks = loopHooks("reverted", progress, timeoutMs);
    try {
      return { report: await revert(migrations, { to, apply, batch, onProgress: hooks.onProgress }), refused: undefined };
    } catch (err) {
      if (err instanceof RevertRefusedError) return { report: err.report, refused: err };
      if (err instanceof MigrationStalledError) throw failure(EXIT.unclassified, err.message);
      if (err instanceof SweepTimeoutError) throw timeoutFailure(`engram migrate revert --to ${to} --apply`, hooks.last(), "reverted");
      throw err;
    } finally {
      hooks.reporter.finish();
    }
  }, process.env, SWEEP_CHECK);
  const partial = outcome.refused?.partial === true;
  writeDocument(output, revertDocument(outcome.report), () => revertText(outcome.report, partial));
  // An applied refusal is a usage failure (exit 2) whose stderr line is the envelope itself.
  if (outcome.refused) throw new CliFailure(EXIT.usage, outcome.refused.envelope);
}

// ---- registration ----------------------------------------------------------------

/**
 * `migrate`'s own flags parse before its subcommand's, so in `engram migrate
 * --apply revert --to 1` the --apply is migrate's and the revert previews,
 * exit 0. A subcommand therefore refuses every flag the caller set on
 * `migrate` (exit 2, nothing opened), naming the flag and where it belongs,
 * never its value.
 */
export function refuseParentFlags(parent: Command, sub: Command): void {
  for (const o of parent.options) {
    const source = parent.getOptionValueSource(o.attributeName());
    if (source !== "cli" && source !== "env") continue;
    const flag = o.long ?? o.flags;
    const path = `engram ${parent.name()} ${sub.name()}`;
    throw usageError(
      sub.options.some((s) => s.long === o.long)
        ? `${flag} must follow the subcommand (${path} ${flag}); given before ${sub.name()} it is a flag of engram ${parent.name()} itself, so nothing was run`
        : `${flag} is a flag of engram ${parent.name()}, not of ${path}; nothing was run`,
    );
  }
}

export function registerOperatorMigrate(program: Command): void {
  const migrate = program
    .command("migrate")
    .summary("bring every record to this binary's schema version (preview unless --apply)")
    .description(
      "Migrate every record below this binary's schema version, on the store the server would open: the one under " +
        "ENGRAM_DATA_DIR, or the Qdrant collection when ENGRAM_QDRANT_URL is set. " +
        `Without --apply it only counts what would change: ${APPLY_RULE}. ` +
        "Embedded store: stop the server and copy the data directory first. Qdrant: --apply makes a collection snapshot " +
        "before its first write and names it on stderr (a snapshot that fails stops the run, exit 5), unless --no-snapshot; see docs/migrate.md.",
    )
    // `engram migrate status --output json`: options after a subcommand belong to it (the root enables the same).
    .enablePositionalOptions()
    .option("--apply", "write: run the convergence loop instead of previewing")
    .option("--no-snapshot", "Qdrant: do not make a collection snapshot before --apply writes (the embedded store makes none either way)")
    .hook("preAction", (self, action) => {
      if (action !== self) refuseParentFlags(self, action);
    });
  addOutputFlag(migrate);
  addSweepTimeoutFlag(migrate);
  addBatchSizeFlag(migrate, SCHEMA_SWEEP_BATCH_SIZE);
  migrate.action(async (o: MigrateFlags) => runMigrate(o));

  const status = migrate
    .command("status")
    .summary("show how many records sit at each schema version (read-only)")
    .description("Show the schema-version histogram of the whole store, read directly from ENGRAM_DATA_DIR (or the Qdrant collection when ENGRAM_QDRANT_URL is set). Read-only.");
  addOutputFlag(status);
  // Accepted (and checked) for the original CLI's scripts: status is one read, with no loop to budget.
  addSweepTimeoutFlag(status, "checked and accepted so the original CLI's scripts run unchanged; the histogram is one read, with no loop to budget");
  status.action(async (o: { output?: OutputMode; timeout?: string }) => runStatus(o));

  const revert = migrate
    .command("revert")
    .summary("revert records to an older schema version (preview unless --apply)")
    .description(
      "Revert every record above --to back down to it, refusing the whole range before any write when a step on the way is " +
        `irreversible or a record has no way back. Without --apply it only counts: ${APPLY_RULE}.`,
    )
    .option("--to <version>", "the schema version to revert to (required)")
    .option("--apply", "write: run the revert loop instead of previewing");
  addOutputFlag(revert);
  addSweepTimeoutFlag(revert);
  addBatchSizeFlag(revert, SCHEMA_SWEEP_BATCH_SIZE);
  revert.action(async (o: RevertFlags) => runRevert(o));
}
