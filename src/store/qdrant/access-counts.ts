import { newRevision } from "../revision.js";
import { DERIVED_KEYS } from "./layout.js";
import type { QdrantPoints } from "./points.js";
import { landedIn, trailOver } from "./revision-trail.js";
import { revisionIs } from "./write-conditions.js";

/** Access counters of the Qdrant store: reads counted in memory, written about a second later by compare-and-swap. */
export class QdrantAccessCounts {
  private readonly access = new Map<string, { count: number; at: string }>();
  private accessTimer: NodeJS.Timeout | undefined;
  private accessWrite: Promise<void> = Promise.resolve();

  constructor(private readonly points: QdrantPoints) {}

  note(id: string, at: string): void {
    const w = this.access.get(id);
    if (!w) this.access.set(id, { count: 1, at });
    else {
      w.count++;
      if (at > w.at) w.at = at;
    }
    if (!this.accessTimer) {
      this.accessTimer = setTimeout(() => void this.flush(), 1000);
      this.accessTimer.unref();
    }
  }

  /**
   * Writes every counted read; resolves once they, and every flush started
   * before, are written. A count that cannot be written is dropped, as a
   * read must never fail for its counter.
   */
  flush(): Promise<void> {
    if (this.accessTimer) clearTimeout(this.accessTimer);
    this.accessTimer = undefined;
    if (this.access.size === 0) return this.accessWrite;
    const entries = [...this.access];
    this.access.clear();
    this.accessWrite = this.accessWrite.then(async () => {
      for (const [id, w] of entries) await this.addAccess(id, w.count, w.at).catch(() => undefined);
    });
    return this.accessWrite;
  }

  /** Adds counted reads to one record by compare-and-swap on its revision, keeping its schema version. */
  private async addAccess(id: string, count: number, at: string): Promise<void> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const stored = await this.points.storedState(id);
      if (!stored) return;
      const rev = newRevision();
      const last = typeof stored.last_accessed_at === "string" && stored.last_accessed_at > at ? stored.last_accessed_at : at;
      await this.points.call("write", () =>
        this.points.client.setPayload(this.points.alias, {
          wait: true,
          ordering: "strong",
          filter: { must: [{ has_id: [id] }, revisionIs(stored.revision as string | undefined)] },
          payload: { access_count: Number(stored.access_count ?? 0) + count, last_accessed_at: last, revision: rev, [DERIVED_KEYS.revisionTrail]: trailOver(stored) },
        }),
      );
      // Retrying a write that landed would count these reads twice, so "landed" includes "landed, then built on".
      if (landedIn(await this.points.storedState(id), rev)) return;
    }
  }
}
