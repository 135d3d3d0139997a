import { AdditivityError, checkAdditive, checkSubtractive } from "./additivity.js";
import type { BatchBudget, MigrationStore, VersionedRow } from "./migration-store.js";
import type { ArgError } from "../../argerror/index.js";
import { freezeNested } from "../../model/deep-freeze.js";
import { refusalError, reversible, type RevertPlan } from "./refusal.js";
import { STEPS, stepsFrom } from "./registry.js";
import { RANDOM_MINT, type MigrationStep, type Payload, type StepContext } from "./step.js";

export const DEFAULT_BATCH = 256;
/**
 * Stored payload bytes per batch. Well above what 256 ordinary records
 * weigh, so on the embedded store it never shortens a pass; it bounds one
 * request to a remote store when records are large.
 */
export const DEFAULT_BATCH_BYTES = 8 * 1024 * 1024;

function budgetOf(batch: number | undefined, bytes: number | undefined): BatchBudget {
  return { rows: batch ?? DEFAULT_BATCH, bytes: bytes ?? DEFAULT_BATCH_BYTES };
}

/** After a pass: `backlog` is what it started from, `left` what it did not move (0: it moved the last one it knew of). */
export type Progress = { phase: "migrate" | "revert"; pass: number; done: number; backlog: number; left: number };

export type MigrateReport = {
  target: number;
  dry_run: boolean;
  would_migrate: number;
  migrated: number;
  failed: number;
  passes: number;
  backlog: number;
  spared: number;
  appeared: number;
};

export type RevertReport = {
  to: number;
  applied: boolean;
  reversible: boolean;
  candidates: number;
  reverted: number;
  failed: number;
  passes: number;
  backlog: number;
  refusal?: string;
};

export class MigrationStalledError extends Error {
  override readonly name = "MigrationStalledError";
}

/** A refusal with the counters of whatever already happened (all zero at preflight). */
export class RevertRefusedError extends Error {
  override readonly name = "RevertRefusedError";
  constructor(
    readonly report: RevertReport,
    readonly envelope: string,
    readonly partial: boolean,
  ) {
    super(envelope);
  }
}

/**
 * The chain each stored version takes, looked up once per sweep rather than
 * once per record: a store holds a handful of versions and a sweep visits
 * every record.
 */
function chainCache<T>(of: (version: number) => T): (version: number) => T {
  const known = new Map<number, T>();
  return (version) => {
    if (known.has(version)) return known.get(version)!;
    const v = of(version);
    known.set(version, v);
    return v;
  };
}

/**
 * What a step is checked against: a copy of its input taken before it runs,
 * nested values frozen and shared. The step gets the input itself, which is
 * the sweep's own (parsed for this row, or the previous step's output): an
 * edit it makes there in place is then measured against the copy like any
 * other effect, and an edit of a nested value throws.
 */
function beforeStep(p: Payload): Payload {
  return { ...freezeNested(p) };
}

/** Applies the chain to one row, refusing (throwing) on any undeclared effect. */
function forward(row: VersionedRow, target: number, chainOf: (version: number) => readonly MigrationStep[] | undefined, ctx: StepContext): Payload {
  const chain = chainOf(row.version);
  if (!chain) throw new AdditivityError(`no step chain from version ${row.version} to ${target}`);
  let p = strip(row);
  for (const step of chain) {
    const before = beforeStep(p);
    const next = step.apply(p, ctx);
    checkAdditive(step, before, next);
    p = next;
  }
  return p;
}

/** Whether a sweep runs the shipped registry, which a store may also run on another thread. */
function shipped(steps: readonly MigrationStep[]): boolean {
  return steps === STEPS;
}

/**
 * What a forward sweep computes for one record: the chain from its version
 * to `target`, each step checked against its declaration. Exported for the
 * store's sweep worker, which runs it over part of a preflight.
 */
export function forwardVisitor(target: number, steps: readonly MigrationStep[]): (row: VersionedRow, ctx: StepContext) => Payload {
  const chainOf = chainCache((version) => stepsFrom(steps, version, target));
  return (row, ctx) => forward(row, target, chainOf, ctx);
}

/**
 * What a revert computes for one record: the refusal a record at its
 * version meets, if any, and otherwise the inverses newest first, each
 * checked against its step. Exported for the store's sweep worker.
 */
export function backwardVisitor(
  to: number,
  steps: readonly MigrationStep[],
): { refusalOf(version: number): ArgError | undefined; visit(row: VersionedRow): Payload } {
  const refusalOf = chainCache((version) => refusalError(previewRevertRow(version, to, steps)));
  const inversesOf = chainCache((version) => [...(stepsFrom(steps, to, version) ?? [])].reverse());
  return { refusalOf, visit: (row) => backward(row, inversesOf(row.version)) };
}

/**
 * Runs every step over the pinned backlog without writing, so a step whose
 * real effect differs from its declaration refuses the whole call before
 * the first write. The payloads it computes go back to the store, which may
 * write them in the passes instead of asking for them again; the store
 * also hands each record the context its ids are minted from.
 */
function precheck(store: MigrationStore, target: number, budget: BatchBudget, steps: readonly MigrationStep[]): Promise<void> {
  return store.scanPinned(target, budget, forwardVisitor(target, steps), shipped(steps));
}

/** The payload without its version stamp, which only the codec writes. The row is the caller's to consume. */
function strip(row: VersionedRow): Payload {
  // The stamp is the last key the codec wrote, so deleting it is cheap.
  delete row.payload.schema_version;
  return row.payload;
}

function stallMessage(kind: "migrate" | "revert", lastError: Error | undefined): string {
  return lastError
    ? `${kind}: backlog did not shrink between passes; writes are not landing: ${lastError.message}`
    : `${kind}: backlog did not shrink between passes; no write reported a failure, so a concurrent writer is producing records below the target as fast as they are migrated — stop it and re-run`;
}

/**
 * Forward sweep. Preview pins the backlog; apply migrates only what the
 * preview showed and is still eligible, one batch per pass, re-counting the
 * backlog each pass and stopping with an error when it stops shrinking.
 */
export async function migrate(
  store: MigrationStore,
  opts: { target: number; apply: boolean; batch?: number; batchBytes?: number; steps?: readonly MigrationStep[]; onProgress?: (p: Progress) => void },
): Promise<MigrateReport> {
  const steps = opts.steps ?? STEPS;
  const budget = budgetOf(opts.batch, opts.batchBytes);
  // A preview only counts: pinning is a write on a store that keeps the pin in its records (Qdrant).
  const pinned = opts.apply ? await store.pinBelow(opts.target) : await store.countBelow(opts.target, false);
  const report: MigrateReport = {
    target: opts.target,
    dry_run: !opts.apply,
    would_migrate: pinned,
    migrated: 0,
    failed: 0,
    passes: 0,
    backlog: pinned,
    spared: 0,
    appeared: 0,
  };
  if (!opts.apply || opts.target <= 0) return report;

  await precheck(store, opts.target, budget, steps);
  const visit = forwardVisitor(opts.target, steps);
  let previous = Number.POSITIVE_INFINITY;
  let lastError: Error | undefined;
  for (;;) {
    const remaining = await store.pendingCount();
    report.passes++;
    if (remaining === 0) break;
    if (report.passes > 1 && remaining >= previous) throw new MigrationStalledError(stallMessage("migrate", lastError));
    previous = remaining;
    const outcomes = await store.rewritePass({ pinnedBelow: opts.target }, budget, opts.target, (row) => visit(row, RANDOM_MINT));
    let moved = 0;
    outcomes.forEach((o) => {
      if (o instanceof Error) {
        report.failed++;
        lastError = o;
      } else if (o === "ok") moved++;
    });
    report.migrated += moved;
    opts.onProgress?.({ phase: "migrate", pass: report.passes, done: report.migrated, backlog: remaining, left: remaining - moved });
  }
  report.backlog = await store.countBelow(opts.target, false);
  report.appeared = report.backlog - (await store.countBelow(opts.target, true));
  report.spared = Math.max(0, report.would_migrate - report.migrated - report.failed);
  return report;
}

/** Zero-write preflight over every record above `to`. */
export async function previewRevert(store: MigrationStore, to: number, steps: readonly MigrationStep[] = STEPS): Promise<RevertPlan> {
  const hist = await store.versionHistogramAbove(to);
  const plan: RevertPlan = { to, candidates: 0, irreversible: [], unsupported: [] };
  const seen = new Set<string>();
  for (const [version, count] of [...hist].sort((a, b) => a[0] - b[0])) {
    plan.candidates += count;
    const chain = stepsFrom(steps, to, version);
    if (!chain) {
      plan.unsupported.push({ version, count });
      continue;
    }
    for (const s of chain) {
      if (s.reversibility.kind === "irreversible" && !seen.has(`${s.from}:${s.to}`)) {
        seen.add(`${s.from}:${s.to}`);
        plan.irreversible.push({ from: s.from, to: s.to, reason: s.reversibility.reason });
      }
    }
  }
  plan.irreversible.sort((a, b) => a.from - b.from);
  return plan;
}

/**
 * Revert to `to`: preflight first (a refusal writes nothing), then the same
 * convergence loop with inverses applied newest first. A record that appears
 * mid-loop and cannot be reverted refuses with the counters so far.
 */
export async function revert(
  store: MigrationStore,
  opts: { to: number; apply: boolean; batch?: number; batchBytes?: number; steps?: readonly MigrationStep[]; onProgress?: (p: Progress) => void },
): Promise<RevertReport> {
  const steps = opts.steps ?? STEPS;
  const budget = budgetOf(opts.batch, opts.batchBytes);
  const plan = await previewRevert(store, opts.to, steps);
  const report: RevertReport = {
    to: opts.to,
    applied: false,
    reversible: reversible(plan),
    candidates: plan.candidates,
    reverted: 0,
    failed: 0,
    passes: 0,
    // A preview reports what an apply would work through.
    backlog: plan.candidates,
  };
  const refusal = refusalError(plan);
  if (refusal) {
    report.refusal = refusal.message;
    if (!opts.apply) return report;
    // Refused before the loop: every progress counter is zero, which is how
    // a caller tells this refusal from one raised inside the loop.
    throw new RevertRefusedError({ ...report, backlog: 0 }, refusal.message, false);
  }
  if (!opts.apply) return report;

  const { refusalOf, visit } = backwardVisitor(opts.to, steps);
  if (shipped(steps)) store.computeRevertAhead?.(opts.to, (row) => (refusalOf(row.version) ? undefined : visit(row)));
  let previous = Number.POSITIVE_INFINITY;
  let lastError: Error | undefined;
  for (;;) {
    const remaining = await store.countAbove(opts.to);
    report.passes++;
    report.backlog = remaining;
    if (remaining === 0) break;
    if (report.passes > 1 && remaining >= previous) throw new MigrationStalledError(stallMessage("revert", lastError));
    previous = remaining;
    let midRefusal: ArgError | undefined;
    const outcomes = await store.rewritePass({ above: opts.to }, budget, opts.to, (row) => {
      midRefusal = refusalOf(row.version);
      // Ends the pass here: the rows before this one are still written.
      if (midRefusal) return undefined;
      return visit(row);
    });
    let moved = 0;
    outcomes.forEach((o) => {
      if (o instanceof Error) {
        report.failed++;
        lastError = o;
      } else if (o === "ok") moved++;
    });
    report.reverted += moved;
    if (midRefusal) {
      const partial: RevertReport = {
        ...report,
        applied: false,
        reversible: false,
        candidates: 1,
        backlog: await store.countAbove(opts.to),
        refusal: midRefusal.message,
      };
      throw new RevertRefusedError(partial, midRefusal.message, true);
    }
    opts.onProgress?.({ phase: "revert", pass: report.passes, done: report.reverted, backlog: remaining, left: remaining - moved });
  }
  report.applied = true;
  report.backlog = 0;
  return report;
}

/** Applies the inverses newest first, refusing (throwing) on any undeclared effect. */
function backward(row: VersionedRow, inverses: readonly MigrationStep[]): Payload {
  let p = strip(row);
  for (const step of inverses) {
    if (step.reversibility.kind !== "inverse") throw new AdditivityError("preflight admitted an irreversible step");
    const before = beforeStep(p);
    const next = step.reversibility.inverse(p);
    // An inverse that touches more than its step added is refused before its batch is written.
    checkSubtractive(step, before, next);
    p = next;
  }
  return p;
}

function previewRevertRow(version: number, to: number, steps: readonly MigrationStep[]): RevertPlan {
  const chain = stepsFrom(steps, to, version);
  const plan: RevertPlan = { to, candidates: 1, irreversible: [], unsupported: [] };
  if (!chain) plan.unsupported.push({ version, count: 1 });
  else
    for (const s of chain)
      if (s.reversibility.kind === "irreversible") plan.irreversible.push({ from: s.from, to: s.to, reason: s.reversibility.reason });
  return plan;
}
