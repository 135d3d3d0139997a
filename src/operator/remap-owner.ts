import type { MemoryRecord } from "../model/record.js";
import { RevisionConflictError, type RecordQuery, type Store } from "../store/index.js";
import { operatorQuery } from "./spine-review.js";

/** Whose records move: one owner's, those with no owner key (pre-isolation), or the anonymous bucket (owner ""). */
export type OwnerSource = { kind: "owner"; owner: string } | { kind: "missing" } | { kind: "anonymous" };

export type RemapReport = {
  /** Which kind of source moved (the owners themselves are not repeated). */
  from: OwnerSource["kind"];
  dry_run: boolean;
  would_remap: number;
  remapped: number;
  failed: number;
  passes: number;
  /** Records of the source owner left when the run ended (0 once it converged). */
  backlog: number;
};

/** After a pass: `backlog` is what it started from, `left` what it did not move (0: it moved the last one it knew of). */
export type RemapProgress = { pass: number; done: number; backlog: number; left: number };

export class RemapStalledError extends Error {
  override readonly name = "RemapStalledError";
}

/** The owner a source names, as the store's owner filter takes it. */
function ownerOf(from: OwnerSource): string | null {
  return from.kind === "owner" ? from.owner : from.kind === "anonymous" ? "" : null;
}

function sourceQuery(from: OwnerSource, now: number): RecordQuery {
  return { ...operatorQuery(undefined, now), owner: ownerOf(from) };
}

/**
 * Moves every record of `from` to owner `to`, in place: each record keeps
 * its id, and only its owner changes. Preview counts and writes nothing.
 * Apply is a convergence loop: each pass reads one batch of the records
 * still owned by `from` and rewrites each conditionally on its revision,
 * so a server writing the same record meanwhile is never overwritten (the
 * record stays for the next pass). A run stopped at any point, even by
 * SIGKILL, leaves every record wholly moved or wholly not: a rerun finds
 * exactly the ones left and moves them, so nothing is lost or doubled.
 */
export async function remapOwner(
  store: Store,
  opts: { from: OwnerSource; to: string; apply: boolean; batch: number; now: () => Date; onProgress?: (p: RemapProgress) => void },
): Promise<RemapReport> {
  const query = () => sourceQuery(opts.from, Math.floor(opts.now().getTime() / 1000));
  const found = await store.count(query());
  const report: RemapReport = { from: opts.from.kind, dry_run: !opts.apply, would_remap: found, remapped: 0, failed: 0, passes: 0, backlog: found };
  if (!opts.apply) return report;
  let previous = Number.POSITIVE_INFINITY;
  for (;;) {
    // One read a pass: the batch, and how many records of the source are left.
    const { records, total: remaining } = await store.list(query(), { order: "asc", limit: opts.batch });
    report.backlog = remaining;
    if (remaining === 0) break;
    report.passes++;
    if (report.passes > 1 && remaining >= previous) {
      throw new RemapStalledError(
        "migrate-remap-owner: the records left did not shrink between passes; another writer keeps creating records for the source owner, or writes are failing — stop it and re-run",
      );
    }
    previous = remaining;
    let moved = 0;
    for (const rec of records) {
      const outcome = await moveOne(store, rec, opts.to);
      if (outcome === "ok") moved++;
      else if (outcome === "failed") report.failed++;
    }
    report.remapped += moved;
    opts.onProgress?.({ pass: report.passes, done: report.remapped, backlog: remaining, left: remaining - moved });
  }
  return report;
}

/** One record's new owner, written only over the revision read; a record changed meanwhile waits for the next pass. */
async function moveOne(store: Store, rec: MemoryRecord, to: string): Promise<"ok" | "again" | "failed"> {
  try {
    await store.replace({ ...rec, owner: to });
    return "ok";
  } catch (err) {
    if (err instanceof RevisionConflictError) return "again";
    // A store that cannot be reached stops the run; a refusal of this one record is counted and retried by the next pass.
    if ((err as { unavailable?: unknown }).unavailable !== undefined) throw err;
    return "failed";
  }
}
