import type { MemoryRecord } from "../model/record.js";
import { decodeRecord, META_EMBEDDER_IDENTITY } from "../store/index.js";
import type { EmbeddedStore } from "../store/embedded/index.js";
import { headerLine, recordLine } from "./export-format.js";
import { REINDEX_IN_PROGRESS } from "./reindex.js";

export type ExportOptions = {
  /** Only this owner's records ("" is the anonymous owner); absent with allOwners: every record. */
  owner?: string;
  allOwners: boolean;
  scope?: string;
  vectors: boolean;
  /** Receives whole lines, each ending in "\n"; awaited, so a slow reader holds the export back. */
  write: (chunk: string) => Promise<void>;
  onProgress?: (done: number, total: number) => void;
};

export type ExportReport = { records: number; embedder: string; vectors: boolean };

const PAGE = 500;

/**
 * Writes the header and then every selected record, oldest first (ties by
 * id), from one read transaction: a server writing meanwhile neither tears
 * a page nor shows up half way through the export.
 */
export async function exportRecords(store: EmbeddedStore, opts: ExportOptions): Promise<ExportReport> {
  const db = store.database;
  const where: string[] = [];
  const params: Record<string, string> = {};
  if (!opts.allOwners) {
    where.push("owner = @owner");
    params.owner = opts.owner ?? "";
  }
  if (opts.scope !== undefined) {
    where.push("scope = @scope");
    params.scope = opts.scope;
  }
  const filter = where.length > 0 ? where.join(" AND ") : "1";
  db.exec("BEGIN");
  try {
    const stored = (db.prepare("SELECT value FROM meta WHERE key = ?").get(META_EMBEDDER_IDENTITY) as { value: string } | undefined)?.value ?? "";
    // Mid-reindex the vectors come from two embedders; "" tells the importer to re-embed them all.
    const embedder = stored.startsWith(REINDEX_IN_PROGRESS) ? "" : stored;
    // The order is settled once, over the keys alone: records has no index on
    // (created_at, id), so a page query ordered by them scanned and sorted the
    // whole table for every page, which made an export of n records cost n²/PAGE
    // row visits (a million records: hours). Rows are then read by rid.
    const rids = db.prepare(`SELECT rid FROM records WHERE ${filter} ORDER BY created_at, id`).pluck().all(params) as number[];
    const total = rids.length;
    await opts.write(headerLine({ embedder, vectors: opts.vectors }) + "\n");
    const row = db.prepare(
      `SELECT payload, ${opts.vectors ? "(SELECT vector FROM vectors v WHERE v.rid = records.rid) AS vector" : "NULL AS vector"} FROM records WHERE rid = ?`,
    );
    let done = 0;
    opts.onProgress?.(0, total);
    for (let at = 0; at < total; at += PAGE) {
      const lines: string[] = [];
      for (const rid of rids.slice(at, at + PAGE)) {
        const r = row.get(rid) as { payload: string; vector: Uint8Array | null };
        lines.push(recordLine(decodeRecord(r.payload) as MemoryRecord, r.vector ?? undefined) + "\n");
      }
      await opts.write(lines.join(""));
      done += lines.length;
      opts.onProgress?.(done, total);
    }
    return { records: done, embedder, vectors: opts.vectors };
  } finally {
    db.exec("COMMIT");
  }
}
