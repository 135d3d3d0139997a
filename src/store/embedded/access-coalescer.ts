/** Reads of one record since the last flush: how many, and the latest time. */
export type AccessEntry = { id: string; count: number; at: string };

export type AccessCoalescerOptions = {
  /** The longest a counted read waits in memory before its batch is written. */
  intervalMs?: number;
  /** Records with waiting counts at which a batch is started early, whatever the interval. */
  maxPending?: number;
  /** Records written per transaction; the writer yields to the event loop between chunks. */
  chunk?: number;
};

export const ACCESS_FLUSH_INTERVAL_MS = 1000;
export const ACCESS_FLUSH_MAX_PENDING = 4096;
/** A write costs up to ~50 us per record on a busy 2-core machine (measured), so a chunk holds the loop 1-3 ms. */
export const ACCESS_FLUSH_CHUNK = 64;

type Waiting = { count: number; at: string };

/**
 * Access counters, coalesced. A read counts itself here (no I/O). At most
 * `intervalMs` after the first read of a batch (sooner once `maxPending`
 * records have counts waiting) the batch is handed to `write` in chunks of
 * `chunk` records, one chunk per turn of the event loop, so no request
 * waits behind more than one chunk. `flush()` writes everything at once
 * (the store calls it when it closes). A chunk that fails to write is kept
 * and retried with the next batch, so a clean shutdown loses nothing.
 */
export class AccessCoalescer {
  /** Counts not yet handed to a batch. */
  private pending = new Map<string, Waiting>();
  /** The batch being written chunk by chunk, if any. */
  private draining: [string, Waiting][] = [];
  private reads = 0;
  private timer: NodeJS.Timeout | undefined;
  private step: NodeJS.Immediate | undefined;
  private readonly intervalMs: number;
  private readonly maxPending: number;
  private readonly chunk: number;

  constructor(
    private readonly write: (entries: AccessEntry[]) => void,
    opts: AccessCoalescerOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? ACCESS_FLUSH_INTERVAL_MS;
    this.maxPending = opts.maxPending ?? ACCESS_FLUSH_MAX_PENDING;
    this.chunk = opts.chunk ?? ACCESS_FLUSH_CHUNK;
  }

  /** Counts one read of `id` at `at` (RFC 3339; the latest wins). */
  note(id: string, at: string): void {
    merge(this.pending, id, 1, at);
    this.reads++;
    if (this.pending.size >= this.maxPending) this.startBatch();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.startBatch(), this.intervalMs);
      // A waiting count never keeps the process alive; close() flushes it.
      this.timer.unref();
    }
  }

  /** Reads counted and not yet written. */
  get size(): number {
    return this.reads;
  }

  /** Writes every waiting count now, in one call. Throws what the write threw, keeping the counts. */
  flush(): void {
    this.cancel();
    const entries = [...this.draining, ...this.pending];
    this.draining = [];
    this.pending = new Map();
    if (entries.length === 0) return;
    this.writeOrKeep(entries, true);
    this.reads = 0;
  }

  /** Moves the waiting counts into a batch and writes its first chunk on the next turn. */
  private startBatch(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.draining.push(...this.pending);
    this.pending = new Map();
    if (!this.step && this.draining.length > 0) this.step = setImmediate(() => this.drainOne());
  }

  private drainOne(): void {
    this.step = undefined;
    const entries = this.draining.splice(0, this.chunk);
    if (entries.length === 0) return;
    if (!this.writeOrKeep(entries, false)) {
      // Kept in `pending` with the rest of the batch; the next interval tries again.
      this.startLater();
      return;
    }
    this.reads = Math.max(0, this.reads - entries.reduce((n, [, w]) => n + w.count, 0));
    if (this.draining.length > 0) this.step = setImmediate(() => this.drainOne());
  }

  /** True when written; otherwise the entries (and the rest of the batch) go back to `pending`. */
  private writeOrKeep(entries: [string, Waiting][], rethrow: boolean): boolean {
    try {
      this.write(entries.map(([id, w]) => ({ id, count: w.count, at: w.at })));
      return true;
    } catch (err) {
      for (const [id, w] of [...entries, ...this.draining]) merge(this.pending, id, w.count, w.at);
      this.draining = [];
      if (rethrow) throw err;
      return false;
    }
  }

  private startLater(): void {
    if (this.timer || this.pending.size === 0) return;
    this.timer = setTimeout(() => this.startBatch(), this.intervalMs);
    this.timer.unref();
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.step) clearImmediate(this.step);
    this.timer = undefined;
    this.step = undefined;
  }
}

function merge(into: Map<string, Waiting>, id: string, count: number, at: string): void {
  const w = into.get(id);
  if (!w) into.set(id, { count, at });
  else {
    w.count += count;
    if (at > w.at) w.at = at;
  }
}
