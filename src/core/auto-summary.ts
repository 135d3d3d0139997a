import type { Summarizer } from "../embed/summarizer.js";
import type { MemoryRecord } from "../model/record.js";
import { RevisionConflictError } from "../store/index.js";
import { WRITE_ATTEMPTS } from "./conditional-write.js";
import type { CoreDeps } from "./deps.js";
import type { Limits } from "./limits.js";
import { DISCOVERY_PREFIX } from "./store-discovery.js";


/**
 * Whether a record is one the summarizer may be asked about: it has no
 * summary yet and is neither a rule (whose summary is its author's index
 * entry) nor a discovery. Nothing else of the record decides it.
 */
export function wantsAutoSummary(rec: Pick<MemoryRecord, "summary" | "category" | "scope">): boolean {
  return rec.summary === "" && rec.category !== "rule" && !rec.scope.startsWith(DISCOVERY_PREFIX);
}

/** The summary cut to the stored summary cap in bytes (0: none), on a character boundary, ending with `…` when cut. */
export function fitSummary(line: string, limits: Pick<Limits, "maxSummaryBytes">): string {
  const cap = limits.maxSummaryBytes;
  if (cap === 0 || Buffer.byteLength(line, "utf8") <= cap) return line;
  let out = "";
  let used = Buffer.byteLength("…", "utf8");
  for (const ch of line) {
    const n = Buffer.byteLength(ch, "utf8");
    if (used + n > cap) break;
    out += ch;
    used += n;
  }
  return out.trimEnd() + "…";
}

/** What became of one record: summarized, left alone (summarized meanwhile, changed, not eligible), or deleted. */
export const AUTO_SUMMARY_OUTCOMES = ["summarized", "skipped", "gone"] as const;
export type AutoSummaryOutcome = (typeof AUTO_SUMMARY_OUTCOMES)[number];

/**
 * Summarizes one stored record and writes the summary with
 * summary_source=auto, the model, and summary_egress_at (when the content
 * left for the summarizer), but only if the record is still unsummarized
 * and its content unchanged when the summary lands: a client's summary or
 * an edit made meanwhile always wins. The write is conditional on the
 * record's revision, so it never overwrites a write it did not see.
 * A summarizer failure rejects with its SummarizerError; nothing is written.
 */
export async function autoSummarize(deps: CoreDeps, summarizer: Summarizer, id: string, signal?: AbortSignal): Promise<AutoSummaryOutcome> {
  const read = await deps.store.getRaw(id);
  if (!read) return "gone";
  if (!wantsAutoSummary(read)) return "skipped";
  const egressAt = deps.now().toISOString();
  const summary = fitSummary(await summarizer.summarize(read.content, deps.limits.summaryMaxChars, signal), deps.limits);
  let rec: MemoryRecord | undefined = read;
  for (let i = 0; i < WRITE_ATTEMPTS; i++) {
    if (i > 0) rec = await deps.store.getRaw(id);
    if (!rec) return "gone";
    if (!wantsAutoSummary(rec) || rec.content !== read.content) return "skipped";
    try {
      await deps.store.replace({ ...rec, summary, summary_source: "auto", summary_model: summarizer.model, summary_egress_at: egressAt });
      return "summarized";
    } catch (err) {
      if (!(err instanceof RevisionConflictError)) throw err;
      if (err.gone) return "gone";
    }
  }
  return "skipped";
}
