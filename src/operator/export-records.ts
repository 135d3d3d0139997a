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
    const total = (db.prepare(`SELECT count(*) AS n FROM records WHERE ${filter}`).get(params) as { n: number }).n;
    await opts.write(headerLine({ embedder, vectors: opts.vectors }) + "\n");
    const page = db.prepare(
      `SELECT created_at, id, payload, ${opts.vectors ? "(SELECT vector FROM vectors v WHERE v.rid = records.rid) AS vector" : "NULL AS vector"} FROM records
       WHERE ${filter} AND (created_at > @after_c OR (created_at = @after_c AND id > @after_id))
       ORDER BY created_at, id LIMIT ${PAGE}`,
    );
    let after = { after_c: "", after_id: "" };
    let done = 0;
    opts.onProgress?.(0, total);
    for (;;) {
      const rows = page.all({ ...params, ...after }) as { created_at: string; id: string; payload: string; vector: Buffer | null }[];
      if (rows.length === 0) break;
      const chunk = rows.map((r) => recordLine(decodeRecord(r.payload) as MemoryRecord, r.vector ?? undefined) + "\n").join("");
      await opts.write(chunk);
      done += rows.length;
      opts.onProgress?.(done, total);
      const last = rows[rows.length - 1]!;
      after = { after_c: last.created_at, after_id: last.id };
    }
    return { records: done, embedder, vectors: opts.vectors };
  } finally {
    db.exec("COMMIT");
  }
}
