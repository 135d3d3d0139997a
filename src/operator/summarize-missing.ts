import { autoSummarize, wantsAutoSummary } from "../core/auto-summary.js";
import type { CoreDeps } from "../core/deps.js";
import type { Summarizer } from "../embed/summarizer.js";
import type { MemoryRecord } from "../model/record.js";
import { isExpired, type ListPage, type RecordQuery } from "../store/index.js";
import { operatorQuery } from "./spine-review.js";

export type SummarizeRow = {
  id: string;
  short_id: string;
  scope: string;
  /** `would_summarize` in a dry run. */
  outcome: "summarized" | "skipped" | "gone" | "failed" | "would_summarize";
  /** Why a summary failed: the endpoint and the cause, never the content. */
  error?: string;
};

export type SummarizeReport = {
  dry_run: boolean;
  model: string;
  /** Records looked at: live records of the scope (or every scope) created before the --older-than cutoff. */
  scanned: number;
  /** Of those, records with no summary that may be summarized (no rules, no discoveries), up to --limit. */
  missing: number;
  summarized: number;
  skipped: number;
  failed: number;
  /** True when --limit stopped the sweep before the last missing record. */
  limited: boolean;
  records: SummarizeRow[];
};

export type SummarizeProgress = { done: number; total: number };

export type SummarizeOptions = {
  /** undefined: every scope. */
  scope?: string;
  /** Only records created at least this long ago (ms; 0: any). */
  olderThanMs: number;
  /** At most this many records are summarized (0: no cap). */
  limit: number;
  dryRun: boolean;
  /** Summaries in flight at once. */
  workers: number;
  onProgress?: (p: SummarizeProgress) => void;
  /** Asked between records; true stops the sweep there (the --timeout budget). */
  stop?: () => boolean;
};

/** Records read per page; a store without cursors (Qdrant) reads its keys once a page, so pages are large. */
const PAGE = 2048;

/** What the sweep keeps of a record it will summarize: the worker reads the record again when its turn comes. */
type Missing = Pick<MemoryRecord, "id" | "short_id" | "scope">;

/**
 * Live and scheduled records only (the on-write queue summarizes a schedule
 * too): a superseded, archived or lapsed record is never recalled again, so
 * its content is not sent anywhere. The gate admits both sides of a window;
 * missingRecords drops the lapsed side.
 */
function sweepQuery(opts: SummarizeOptions, now: Date): RecordQuery {
  const q = operatorQuery(opts.scope, Math.floor(now.getTime() / 1000));
  q.gate = { archived: false, superseded: false, scheduled: true };
  if (opts.olderThanMs > 0) q.createdBefore = new Date(now.getTime() - opts.olderThanMs).toISOString();
  return q;
}

/** Every record the query admits with no summary, oldest first, read a page at a time. */
async function missingRecords(deps: CoreDeps, q: RecordQuery, limit: number): Promise<{ scanned: number; missing: Missing[]; limited: boolean }> {
  const missing: Missing[] = [];
  let scanned = 0;
  let cursor: ListPage["cursor"];
  for (;;) {
    const { records } = await deps.store.list(q, { order: "asc", limit: PAGE, cursor });
    scanned += records.length;
    for (const r of records) {
      if (!wantsAutoSummary(r) || isExpired({ notAfter: r.not_after ?? null }, q.now)) continue;
      if (limit > 0 && missing.length === limit) return { scanned, missing, limited: true };
      missing.push({ id: r.id, short_id: r.short_id, scope: r.scope });
    }
    if (records.length < PAGE) return { scanned, missing, limited: false };
    const last = records[records.length - 1]!;
    cursor = { c: last.created_at, seen: records.filter((r) => r.created_at === last.created_at).map((r) => r.id) };
  }
}

/**
 * `engram summarize-missing`: the backstop of the on-write queue. Finds the
 * live records that still have no summary (rules and discoveries never get
 * one) and summarizes each as the queue would, writing only over a record
 * still unsummarized when its summary lands. A dry run lists them and sends
 * nothing anywhere.
 */
export async function summarizeMissing(deps: CoreDeps, summarizer: Summarizer, opts: SummarizeOptions): Promise<SummarizeReport> {
  const found = await missingRecords(deps, sweepQuery(opts, deps.now()), opts.limit);
  const report: SummarizeReport = {
    dry_run: opts.dryRun,
    model: summarizer.model,
    scanned: found.scanned,
    missing: found.missing.length,
    summarized: 0,
    skipped: 0,
    failed: 0,
    limited: found.limited,
    records: [],
  };
  const row = (r: Missing, outcome: SummarizeRow["outcome"], error?: string): SummarizeRow =>
    error === undefined ? { id: r.id, short_id: r.short_id, scope: r.scope, outcome } : { id: r.id, short_id: r.short_id, scope: r.scope, outcome, error };
  if (opts.dryRun) {
    report.records = found.missing.map((r) => row(r, "would_summarize"));
    return report;
  }
  const rows: (SummarizeRow | undefined)[] = new Array(found.missing.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < found.missing.length && !opts.stop?.()) {
      const at = next++;
      const r = found.missing[at]!;
      try {
        const outcome = await autoSummarize(deps, summarizer, r.id);
        rows[at] = row(r, outcome);
        if (outcome === "summarized") report.summarized++;
        else report.skipped++;
      } catch (err) {
        if (!(err instanceof Error && err.name === "SummarizerError")) throw err;
        rows[at] = row(r, "failed", err.message);
        report.failed++;
      }
      opts.onProgress?.({ done: ++done, total: found.missing.length });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.workers) }, worker));
  report.records = rows.filter((r): r is SummarizeRow => r !== undefined);
  return report;
}
