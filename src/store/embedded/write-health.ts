import type { Logger } from "../../model/logger.js";
import type { FaultObserver, StoreFault } from "../store-fault.js";

/** How often a store that cannot write tries a small write of its own, so /readyz recovers without waiting for a caller. */
export const WRITE_PROBE_MS = 1000;

/**
 * Tracks episodes of a store that cannot write: the first failing write
 * logs the cause once, every later one in the same episode stays quiet (a
 * full disk fails every write until space returns), and the episode ends at
 * the next write that works, a caller's or the probe's. Damaged data is
 * logged once per cause for the life of the store: it does not heal.
 */
export class WriteHealth implements FaultObserver {
  private episode: string | undefined;
  private readonly damage = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    /** A small committed write; throws when the store still cannot write. */
    private readonly probe: () => void,
    private readonly probeMs: number = WRITE_PROBE_MS,
    /** Named in the log lines so the operator knows which file to look at. */
    private readonly where: string = "the store",
  ) {}

  private standing: StoreFault | undefined;

  /**
   * The file was found damaged after the store opened (the background
   * integrity check): from now on every call answers data_loss. `message`
   * names the file, the cause and the recovery.
   */
  damaged(cause: string, message: string): void {
    if (this.standing !== undefined) return;
    this.standing = { outcome: "data_loss", cause };
    this.damage.add(cause);
    this.log.error(`${message}; until then every request answers data_loss`, { cause });
  }

  blocked(): StoreFault | undefined {
    return this.standing;
  }

  /** False while an episode lasts: /readyz names the store as unable to write. */
  get canWrite(): boolean {
    return this.episode === undefined;
  }

  fault(fault: StoreFault): boolean {
    if (fault.outcome === "data_loss") {
      if (!this.damage.has(fault.cause)) {
        this.damage.add(fault.cause);
        this.log.error(`stored data is damaged: reads of it answer data_loss; restore ${this.where} from a backup`, { cause: fault.cause });
      }
      return true;
    }
    if (fault.reason !== "store_cannot_write") {
      // A read that failed for an I/O reason is not an episode of its own; the lane logs it.
      return false;
    }
    if (this.episode === undefined) {
      this.episode = fault.cause;
      this.log.warn("store cannot accept writes: writes answer unavailable until it can", { cause: fault.cause });
      this.timer = setInterval(() => this.tryProbe(), this.probeMs);
      this.timer.unref();
    }
    return true;
  }

  writeSucceeded(): void {
    if (this.episode === undefined) return;
    const cause = this.episode;
    this.episode = undefined;
    this.stop();
    this.log.info("store accepts writes again", { cause });
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tryProbe(): void {
    try {
      this.probe();
    } catch {
      // Still failing: the episode goes on, logged once already.
      return;
    }
    this.writeSucceeded();
  }
}
