/** Reads of one record since the last flush: how many, and the latest time. */
export type AccessEntry = { id: string; count: number; at: string };

export type AccessCoalescerOptions = {
  /** The longest a counted read waits in memory before it is written. */
  intervalMs?: number;
  /** Records with waiting counts at which a flush is forced, whatever the interval. */
  maxPending?: number;
};

export const ACCESS_FLUSH_INTERVAL_MS = 1000;
/** A flush costs up to ~100 µs per record on a busy 2-core machine (measured), so this keeps one to a few milliseconds. */
export const ACCESS_FLUSH_MAX_PENDING = 64;

/**
 * Access counters, coalesced. A read counts itself here (no I/O), and the
 * counts are handed to `write` as one batch of increments at most
 * `intervalMs` after the first read of the batch, or at once when
 * `maxPending` records have counts waiting, and always by `flush()` (which the store
 * calls when it closes). A batch that fails to write is kept and retried
 * with the next one, so a clean shutdown loses nothing.
 */
export class AccessCoalescer {
  private pending = new Map<string, { count: number; at: string }>();
  private reads = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly intervalMs: number;
  private readonly maxPending: number;

  constructor(
    private readonly write: (entries: AccessEntry[]) => void,
    opts: AccessCoalescerOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? ACCESS_FLUSH_INTERVAL_MS;
    this.maxPending = opts.maxPending ?? ACCESS_FLUSH_MAX_PENDING;
  }

  /** Counts one read of `id` at `at` (RFC 3339; the latest wins). */
  note(id: string, at: string): void {
    const e = this.pending.get(id);
    if (e) {
      e.count++;
      if (at > e.at) e.at = at;
    } else {
      this.pending.set(id, { count: 1, at });
    }
    this.reads++;
    if (this.pending.size >= this.maxPending) {
      this.flush();
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => this.flushFromTimer(), this.intervalMs);
      // A pending count never keeps the process alive; close() flushes it.
      this.timer.unref();
    }
  }

  /** Reads counted and not yet written. */
  get size(): number {
    return this.reads;
  }

  /** Writes every waiting count now, in one batch. Throws what the write threw, keeping the counts. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    const reads = this.reads;
    this.pending = new Map();
    this.reads = 0;
    try {
      this.write([...batch].map(([id, e]) => ({ id, count: e.count, at: e.at })));
    } catch (err) {
      // Put them back under whatever arrived meanwhile, to go with the next batch.
      for (const [id, e] of batch) {
        const cur = this.pending.get(id);
        if (cur) {
          cur.count += e.count;
          if (e.at > cur.at) cur.at = e.at;
        } else this.pending.set(id, e);
      }
      this.reads += reads;
      throw err;
    }
  }

  private flushFromTimer(): void {
    this.timer = undefined;
    try {
      this.flush();
    } catch {
      // Kept for the next try; a timer has no caller to tell, and close() reports a failure that lasts.
      if (!this.timer && this.pending.size > 0) {
        this.timer = setTimeout(() => this.flushFromTimer(), this.intervalMs);
        this.timer.unref();
      }
    }
  }
}
