import type { MigrationStage } from "../migration-stage.js";
import { AdditivityError } from "../../migrations/additivity.js";
import { SweepHelper } from "./sweep-helper.js";
import { RowFailure, type Keep, type StagedChunk, type SweepDirection } from "./sweep-row.js";

/**
 * Computes a chunk on the main thread: the chunk (undefined past the end)
 * and the change-log head of the snapshot it was read in. Throws a
 * RowFailure when a forward rewrite throws.
 */
export type ComputeHere = (k: number, keep: Keep) => { seq: number; chunk: StagedChunk | undefined };

/**
 * The rewrites of one sweep, computed ahead of its passes in chunks of a
 * fixed list of rids (in the order the passes write them) into a stage,
 * by the main thread and, when given a file, a worker thread at once. Each
 * side claims the next chunk index from one shared counter, so neither
 * waits for the other and no chunk is computed twice; the main thread
 * claims one whenever it has nothing better to do (a preflight: always; a
 * revert: when the pass it is about to write is not computed yet).
 *
 * Every chunk is current at the snapshot it was read in, so the stage is
 * trusted only from the oldest of those log heads (`seq`). A chunk the
 * worker claimed and never sent (it crashed) is computed here by `settle`.
 */
export class SweepChunks {
  readonly chunks: number;
  /** [next chunk to claim, stop]: both threads read and write it. */
  private readonly claim = new Int32Array(new SharedArrayBuffer(8));
  /** Payload characters kept by both, against `maxChars`. */
  private readonly chars = new Int32Array(new SharedArrayBuffer(4));
  private readonly done = new Set<number>();
  private readonly helper: SweepHelper | undefined;
  /** The oldest log head any staged chunk was read at. */
  seq = Number.POSITIVE_INFINITY;
  /** The failure of the lowest rid met so far (forward only). */
  failure: RowFailure | undefined;

  constructor(
    readonly direction: SweepDirection,
    readonly version: number,
    readonly rids: Float64Array,
    readonly chunkRows: number,
    private readonly maxChars: number,
    private readonly stage: MigrationStage,
    private readonly computeHere: ComputeHere,
    worker: { file: string; mint: Float64Array | undefined } | undefined,
  ) {
    this.chunks = Math.ceil(rids.length / chunkRows);
    this.helper = worker
      ? new SweepHelper({
          direction,
          file: worker.file,
          version,
          rids,
          mint: worker.mint,
          claim: this.claim,
          chars: this.chars,
          chunkRows,
          maxChars,
        })
      : undefined;
  }

  /** What each computed row keeps, given the budget left. */
  private keep(): Keep {
    if (Atomics.load(this.chars, 0) >= this.maxChars) return "none";
    return this.direction === "forward" ? "all" : "quiet";
  }

  /** Claims the next unclaimed chunk and computes it here; false when none is left or the sweep stopped. */
  computeNext(): boolean {
    if (Atomics.load(this.claim, 1) !== 0) return false;
    const k = Atomics.add(this.claim, 0, 1);
    if (k >= this.chunks) return false;
    this.runHere(k);
    return this.failure === undefined;
  }

  private runHere(k: number): void {
    try {
      const { seq, chunk } = this.computeHere(k, this.keep());
      this.add(k, seq, chunk);
    } catch (err) {
      if (!(err instanceof RowFailure)) throw err;
      this.failed(err);
    }
  }

  private add(k: number, seq: number, chunk: StagedChunk | undefined): void {
    this.done.add(k);
    this.seq = Math.min(this.seq, seq);
    if (!chunk) return;
    Atomics.add(this.chars, 0, chunk.text.length);
    this.stage.addChunk(chunk);
  }

  private failed(f: RowFailure): void {
    Atomics.store(this.claim, 1, 1);
    if (this.failure === undefined || f.rid < this.failure.rid) this.failure = f;
  }

  /** Stages what the worker has sent so far. */
  collect(): void {
    const h = this.helper;
    if (!h) return;
    // The worker's chars were counted on its side already.
    for (const { k, seq, chunk } of h.take()) {
      this.done.add(k);
      this.seq = Math.min(this.seq, seq);
      this.stage.addChunk(chunk);
    }
    const f = h.failure;
    if (f !== undefined && !this.done.has(f.k)) {
      this.done.add(f.k);
      this.failed(new RowFailure(f.rid, rebuiltError(f.name, f.message)));
    }
  }

  /** Whether chunk k is staged (or was found to hold nothing to stage). */
  has(k: number): boolean {
    return this.done.has(k);
  }

  /** Every chunk computed and staged, and no worker still running. */
  get complete(): boolean {
    return this.done.size >= this.chunks && (this.helper === undefined || this.helper.ended);
  }

  /** Waits until the worker has sent chunk k or has ended; false when it ended without sending it. */
  async waitFor(k: number): Promise<boolean> {
    const h = this.helper;
    if (!h) return false;
    await h.until(() => h.sent(k));
    this.collect();
    return this.done.has(k);
  }

  /**
   * After the main thread has run out of chunks to claim: waits for the
   * worker to end, stages what it sent, and computes here whatever it
   * claimed and never sent. Past a failure only the chunks before it in
   * rid order still matter.
   */
  async settle(): Promise<void> {
    if (this.helper) {
      await this.helper.finished();
      this.collect();
    }
    const claimed = Math.min(this.chunks, Atomics.load(this.claim, 0));
    for (let k = 0; k < claimed; k++) {
      if (this.done.has(k)) continue;
      if (this.failure !== undefined && this.rids[k * this.chunkRows]! > this.failure.rid) continue;
      this.runHere(k);
    }
  }

  stop(): void {
    this.helper?.stop();
  }

  /** Stops the worker and resolves once it has closed its connection and ended. */
  async stopped(): Promise<void> {
    this.helper?.stop();
    await this.helper?.finished();
  }
}

/** A failure a sweep worker reported, as the error the main thread would have met. */
function rebuiltError(name: string, message: string): Error {
  if (name === "AdditivityError") return new AdditivityError(message);
  return Object.assign(new Error(message), { name });
}
