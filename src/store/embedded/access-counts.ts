import type { MemoryRecord } from "../../model/record.js";
import { AccessCoalescer, type AccessEntry } from "./access-coalescer.js";
import type { StoreHandle } from "./handle.js";
import type { RecordWrites } from "./record-writes.js";

/**
 * Access counters of the embedded store: a read counts itself in memory
 * (access-coalescer.ts) and the counts reach the records in batches,
 * through the one record writer.
 */
export class AccessCounts {
  private readonly coalescer = new AccessCoalescer((entries) => this.addAccess(entries));

  constructor(
    private readonly h: StoreHandle,
    private readonly writes: RecordWrites,
  ) {}

  note(id: string, at: string): void {
    // After close() nothing can be written; a read that raced the shutdown has nothing to count into.
    if (this.h.db.open) this.coalescer.note(id, at);
  }

  /** Writes every count still waiting. */
  flush(): void {
    this.coalescer.flush();
  }

  /**
   * Adds each entry's reads to its record, all in one transaction. Each row
   * is read, incremented and written under the write lock, so whatever
   * changed it since the reads were counted stays; a record deleted
   * meanwhile is skipped. Being read does not migrate a record: it keeps
   * its schema version.
   */
  addAccess(entries: readonly AccessEntry[]): void {
    const get = this.h.stmt("SELECT rid, short_id, schema_version, payload FROM records WHERE id = ?");
    this.writes.transaction(() => {
      for (const e of entries) {
        const row = get.get(e.id) as { rid: number; short_id: string | null; schema_version: number | null; payload: string } | undefined;
        if (!row) continue;
        const rec = JSON.parse(row.payload) as MemoryRecord;
        rec.access_count = (rec.access_count ?? 0) + e.count;
        if (!rec.last_accessed_at || e.at > rec.last_accessed_at) rec.last_accessed_at = e.at;
        this.writes.writeRecord(rec, undefined, row.schema_version, { stored: row });
      }
    });
  }
}
