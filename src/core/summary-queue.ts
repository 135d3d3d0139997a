import type { Summarizer } from "../embed/summarizer.js";
import type { MemoryRecord } from "../model/record.js";
import { noteOnSpan, traceContext, traced, type TraceContext } from "../model/trace-hook.js";
import { AUTO_SUMMARY_OUTCOMES, autoSummarize, wantsAutoSummary } from "./auto-summary.js";
import type { CoreDeps } from "./deps.js";

export type SummaryQueueOptions = {
  /** Record ids that may wait; one more is dropped (ENGRAM_SUMMARY_QUEUE_SIZE). */
  size: number;
  /** Summaries in flight at once (ENGRAM_SUMMARY_WORKERS). */
  workers: number;
};

/** What became of a record offered to the queue: an auto summary's outcome, its summarizer failed, or the queue was full. */
export const SUMMARY_QUEUE_OUTCOMES = [...AUTO_SUMMARY_OUTCOMES, "failed", "dropped"] as const;
export type SummaryQueueOutcome = (typeof SUMMARY_QUEUE_OUTCOMES)[number];

const noOutcomes = () => Object.fromEntries(SUMMARY_QUEUE_OUTCOMES.map((o) => [o, 0])) as Record<SummaryQueueOutcome, number>;

/** What a server without the queue reports of it (for /metrics): nothing waiting, every outcome at 0. */
export const NO_SUMMARY_QUEUE: { readonly length: number; readonly outcomes: Readonly<Record<SummaryQueueOutcome, number>> } = Object.freeze({
  length: 0,
  outcomes: Object.freeze(noOutcomes()),
});

/**
 * The on-write auto-summary queue (ENGRAM_SUMMARY_ON_WRITE): a record a
 * store, schedule or supersede just created is offered here after its write
 * succeeded, and `workers` loops summarize what waits. Offering never waits
 * and never throws, so a full queue, a slow summarizer or a failing one
 * never slows or fails a write: a full queue drops the record with a
 * warning, a failure is logged, and either way the record stays
 * unsummarized for `engram summarize-missing` to find. Only ids wait here;
 * a worker reads the record when its turn comes.
 */
/** A record waiting for its summary: its id, and the trace of the write that offered it (when traced), with when. */
type Queued = { id: string; from?: TraceContext; at: number };

export class SummaryQueue {
  private readonly waiting: Queued[] = [];
  private head = 0;
  private wake: (() => void)[] = [];
  private closed = false;
  private readonly abort = new AbortController();
  private readonly loops: Promise<void>[];
  readonly #outcomes = noOutcomes();

  constructor(
    private readonly deps: CoreDeps,
    private readonly summarizer: Summarizer,
    private readonly opts: SummaryQueueOptions,
  ) {
    this.loops = Array.from({ length: opts.workers }, () => this.work());
  }

  /** Records waiting, for tests and metrics. */
  get length(): number {
    return this.waiting.length - this.head;
  }

  /** Records offered since start, by what became of them (for /metrics). */
  get outcomes(): Readonly<Record<SummaryQueueOutcome, number>> {
    return this.#outcomes;
  }

  /** Takes a record just created; discoveries, rules and summarized records are not queued. */
  offer(rec: MemoryRecord): void {
    if (this.closed || !wantsAutoSummary(rec)) return;
    if (this.length >= this.opts.size) {
      this.#outcomes.dropped++;
      noteOnSpan("engram.summary.dropped", true);
      this.deps.log.warn("summary queue full; the new record was not queued for an auto summary (engram summarize-missing will find it)", {
        id: rec.id,
        queue_size: this.opts.size,
      });
      return;
    }
    this.waiting.push({ id: rec.id, from: traceContext(), at: performance.now() });
    this.wake.shift()?.();
  }

  /** Stops taking records, cancels the summaries in flight and waits for the workers; what still waits is dropped. */
  async close(): Promise<void> {
    this.closed = true;
    this.abort.abort();
    for (const w of this.wake.splice(0)) w();
    await Promise.all(this.loops);
  }

  private async next(): Promise<Queued | undefined> {
    while (!this.closed) {
      if (this.length > 0) {
        const queued = this.waiting[this.head++]!;
        // Drop the consumed prefix now and then, so the array never grows past the queue size for long.
        if (this.head > 1024 && this.head * 2 > this.waiting.length) {
          this.waiting.splice(0, this.head);
          this.head = 0;
        }
        return queued;
      }
      await new Promise<void>((resolve) => this.wake.push(resolve));
    }
    return undefined;
  }

  private async work(): Promise<void> {
    for (;;) {
      const queued = await this.next();
      if (queued === undefined) return;
      const id = queued.id;
      try {
        // Its own trace, linked to the write's: the summary is made after that request has answered.
        const outcome = await traced(
          "engram.summary",
          async (notes) => {
            const o = await autoSummarize(this.deps, this.summarizer, id, this.abort.signal);
            notes.set("engram.summary.outcome", o);
            return o;
          },
          { root: true, attributes: { "engram.summary.queued_ms": Math.round(performance.now() - queued.at) }, ...(queued.from ? { follows: queued.from } : {}) },
        );
        this.#outcomes[outcome]++;
      } catch (err) {
        if (this.closed) return;
        this.#outcomes.failed++;
        // A SummarizerError names the endpoint and the cause, never the content; anything else by its class only.
        const error = err instanceof Error && err.name === "SummarizerError" ? err.message : err instanceof Error ? err.name : "unknown";
        this.deps.log.warn("auto summary failed; the record stays unsummarized (engram summarize-missing retries it)", { id, error });
      }
    }
  }
}
