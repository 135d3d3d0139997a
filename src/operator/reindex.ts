import { rmSync } from "node:fs";
import { join } from "node:path";
import type { MemoryRecord } from "../model/record.js";
import { embeddingText, identityKey, REINDEX_IN_PROGRESS, type Embedder } from "../embed/index.js";
import type { EmbeddedStore } from "../store/embedded/index.js";
import { META_EMBEDDER_IDENTITY, META_VECTOR_SNAPSHOT_SEQ } from "../store/index.js";

export type ReindexReport = {
  dry_run: boolean;
  from_identity: string;
  to_identity: string;
  /** Every record in the store. */
  records: number;
  /** Records still carrying another embedder's vector when this run began. */
  pending: number;
  /** Records this run re-embedded. */
  reembedded: number;
  /** Records an earlier, interrupted run had already re-embedded. */
  already_done: number;
};

export type ReindexProgress = { done: number; total: number };

/** The stored identity's prefix while a run is under way (see src/embed/identity-check.ts). */
export { REINDEX_IN_PROGRESS };
/** The identity the data had before the first (possibly interrupted) run. */
const META_REINDEX_FROM = "reindex_from";

/** A record is done when it carries the target's stamp and a vector of the target's size. */
const PENDING_WHERE = `(json_extract(payload, '$.embedder_identity') IS NOT @to
  OR (SELECT length(vector) FROM vectors v WHERE v.rid = records.rid) IS NOT @bytes)`;

/**
 * Re-embeds every record with the configured embedder and records its
 * identity, so a store written by one embedder can be served by another.
 * Preview by default. Records keep their schema version and payload; only
 * the vector and the embedder stamp change.
 *
 * Crash-safe and resumable: each batch commits on its own, the in-progress
 * marker is written before the first batch and cleared only after the last,
 * and a rerun skips the records already done, so killing a run at any point
 * and running it again converges on the same store. The first batch is
 * embedded before the marker is written, so an embedder that cannot answer
 * changes nothing: the original configuration keeps serving.
 */
export async function reindex(
  store: EmbeddedStore,
  embedder: Embedder,
  opts: {
    apply: boolean;
    batch?: number;
    dataDir?: string;
    onProgress?: (p: ReindexProgress) => void;
    /** Called between two committed batches; throwing stops the run there (a --timeout). */
    between?: () => void;
  },
): Promise<ReindexReport> {
  const db = store.database;
  const to = identityKey(embedder.identity);
  const params = { to, bytes: embedder.identity.dim * 4 };
  const stored = (await store.getMeta(META_EMBEDDER_IDENTITY)) ?? "";
  const interruptedFrom = await store.getMeta(META_REINDEX_FROM);
  const total = (db.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n;
  const pending = (db.prepare(`SELECT count(*) AS n FROM records WHERE ${PENDING_WHERE}`).get(params) as { n: number }).n;
  const report: ReindexReport = {
    dry_run: !opts.apply,
    from_identity: interruptedFrom ?? stored,
    to_identity: to,
    records: total,
    pending,
    reembedded: 0,
    already_done: interruptedFrom !== undefined ? total - pending : 0,
  };
  if (!opts.apply) return report;
  if (stored === to && pending === 0 && interruptedFrom === undefined) return report;

  const batch = opts.batch ?? 64;
  const page = db.prepare(`SELECT rid, payload, schema_version FROM records WHERE rid > @after AND ${PENDING_WHERE} ORDER BY rid LIMIT @limit`);
  type Rows = { rid: number; payload: string; schema_version: number | null }[];
  const read = (after: number) => page.all({ ...params, after, limit: batch }) as Rows;
  const embed = async (rows: Rows) => {
    const records = rows.map((r) => JSON.parse(r.payload) as MemoryRecord);
    return { rows, records, vectors: await embedder.embedDocuments(records.map((r) => embeddingText(r.content, r.tags ?? []))) };
  };

  // The first batch is embedded before anything is written: an embedder
  // that cannot answer (unreachable, misconfigured) stops the run with the
  // store exactly as it was, still served by the configuration it had.
  const first = read(0);
  let work = first.length > 0 ? await embed(first) : undefined;

  // The marker goes in before any vector changes, and the saved vector
  // index (built at the old dimension) goes away with it.
  store.transaction(() => {
    if (interruptedFrom === undefined) db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(META_REINDEX_FROM, stored);
    db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(META_EMBEDDER_IDENTITY, REINDEX_IN_PROGRESS + to);
    db.prepare("DELETE FROM meta WHERE key = ?").run(META_VECTOR_SNAPSHOT_SEQ);
  });
  dropVectorSnapshot(opts.dataDir);

  opts.onProgress?.({ done: 0, total: pending });
  while (work !== undefined) {
    const { rows, records, vectors } = work;
    store.transaction(() => {
      records.forEach((r, i) => {
        // "update" never inserts: a record deleted meanwhile stays deleted.
        if (store.writeRecord({ ...r, embedder_identity: to }, vectors[i], rows[i]!.schema_version, "update")) report.reembedded++;
      });
    });
    opts.onProgress?.({ done: report.reembedded, total: pending });
    const next = read(rows[rows.length - 1]!.rid);
    if (next.length === 0) break;
    // Between two committed batches, and only while work remains: a budget
    // that runs out after the last batch does not leave the run unfinished.
    opts.between?.();
    work = await embed(next);
  }

  store.transaction(() => {
    db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(META_EMBEDDER_IDENTITY, to);
    db.prepare("DELETE FROM meta WHERE key IN (?, ?)").run(META_REINDEX_FROM, META_VECTOR_SNAPSHOT_SEQ);
  });
  dropVectorSnapshot(opts.dataDir);
  return report;
}

function dropVectorSnapshot(dataDir: string | undefined): void {
  if (dataDir && dataDir !== ":memory:") rmSync(join(dataDir, "vectors"), { recursive: true, force: true });
}
