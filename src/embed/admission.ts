import { UnavailableError } from "../argerror/unavailable.js";
import { traced, tracingOn } from "../model/trace-hook.js";

/**
 * At most `limit` jobs run at once and at most `queue` more wait; a job
 * beyond that is refused at once as `unavailable` (the embedder is at
 * capacity) instead of waiting without bound. A finished job hands its slot
 * straight to the oldest waiter, so the order of admission is kept.
 */
export class Admission {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly queue: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
    if (!Number.isInteger(queue) || queue < 0) throw new RangeError("queue must be a non-negative integer");
  }

  /** Jobs running and jobs waiting, for tests and diagnostics. */
  pressure(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  /** A free slot at once (undefined), a wait for one, or the refusal. */
  private admit(): Promise<void> | undefined {
    if (this.running < this.limit) {
      this.running++;
      return undefined;
    }
    if (this.waiting.length < this.queue) return new Promise<void>((admit) => this.waiting.push(admit));
    throw new UnavailableError("embedder_at_capacity", "queue full");
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (tracingOn()) {
      // The wait for a slot is its own span, so a slow embedding shows whether it queued or computed.
      await traced("engram.embed.admission", async (notes) => {
        notes.set("engram.embed.queued_ahead", this.waiting.length);
        notes.set("engram.embed.running", this.running);
        await this.admit();
      });
    } else {
      const wait = this.admit();
      if (wait !== undefined) await wait;
    }
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
