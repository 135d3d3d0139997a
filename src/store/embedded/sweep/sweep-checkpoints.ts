import type { StoreHandle } from "../handle.js";
import { WalCheckpointer } from "./wal-checkpointer.js";

/** How a sweep's connection checkpoints the WAL: tuned for a sweep, and from its first pass on a worker thread. */
export class SweepCheckpoints {
  /** Set once this connection has run a sweep pass. */
  private sweeping = false;
  /** Set while a sweep's passes run with their checkpoints on another thread. */
  private checkpointer: WalCheckpointer | undefined;

  constructor(private readonly h: StoreHandle) {}

  /**
   * A sweep rewrites every page of the table and, minting short ids, random
   * pages of an index. Checkpointing at SQLite's default 1000 WAL pages
   * would copy and fsync the same pages again and again; at 16384 (64 MiB
   * of WAL) and with a 64 MiB page cache a page is mostly written back once.
   * Commits, and what a crash keeps, are unchanged. For this connection
   * only, from its first sweep call on.
   */
  tune(): void {
    if (this.sweeping) return;
    this.h.db.pragma("wal_autocheckpoint = 16384");
    this.h.db.pragma("cache_size = -65536");
    this.sweeping = true;
  }

  /**
   * From a sweep's first pass over a file on, its checkpoints run on a
   * worker (see WalCheckpointer) instead of inside the passes' commits.
   */
  elsewhere(): void {
    const file = this.h.fileName();
    if (this.checkpointer || file === undefined) return;
    this.checkpointer = new WalCheckpointer(file);
    this.h.db.pragma("wal_autocheckpoint = 0");
  }

  /** Hands checkpoints back to this connection once a sweep has nothing left to write. */
  async here(): Promise<void> {
    const c = this.checkpointer;
    if (!c) return;
    this.checkpointer = undefined;
    await c.stop();
    // What the worker's rounds left (one that met a busy lock gives up at once) is folded in here.
    this.h.db.pragma("wal_checkpoint(PASSIVE)");
    this.h.db.pragma("wal_autocheckpoint = 16384");
  }
}
