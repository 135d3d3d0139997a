import { rmSync } from "node:fs";
import { join } from "node:path";
import type { MemoryRecord } from "../core/record.js";
import { embeddingText, identityKey, type Embedder } from "../embed/index.js";
import type { EmbeddedStore } from "../store/embedded-store.js";
import { META_EMBEDDER_IDENTITY, META_VECTOR_SNAPSHOT_SEQ } from "../store/meta-keys.js";


export type ReindexReport = {
  dry_run: boolean;
  from_identity: string;
  to_identity: string;
  records: number;
  reembedded: number;
};

export type ReindexProgress = { done: number; total: number };

/**
 * Re-embeds every record with the configured embedder and records its
 * identity, so a store written by one embedder can be served by another.
 * Preview by default. Records keep their schema version and payload; only
 * the vector and the embedder stamp change. The saved vector snapshot is
 * dropped so the next start rebuilds it at the new dimension.
 */
export async function reindex(
  store: EmbeddedStore,
  embedder: Embedder,
  opts: { apply: boolean; batch?: number; dataDir?: string; onProgress?: (p: ReindexProgress) => void },
): Promise<ReindexReport> {
  const db = store.database;
  const total = (db.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n;
  const report: ReindexReport = {
    dry_run: !opts.apply,
    from_identity: (await store.getMeta(META_EMBEDDER_IDENTITY)) ?? "",
    to_identity: identityKey(embedder.identity),
    records: total,
    reembedded: 0,
  };
  if (!opts.apply) return report;
  const batch = opts.batch ?? 64;
  let after = 0;
  for (;;) {
    const rows = db
      .prepare("SELECT rid, payload, schema_version FROM records WHERE rid > ? ORDER BY rid LIMIT ?")
      .all(after, batch) as { rid: number; payload: string; schema_version: number | null }[];
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.rid;
    const records = rows.map((r) => JSON.parse(r.payload) as MemoryRecord);
    const vectors = await embedder.embedDocuments(records.map((r) => embeddingText(r.content, r.tags ?? [])));
    store.transaction(() => {
      records.forEach((r, i) => {
        const written = store.writeRecord({ ...r, embedder_identity: report.to_identity }, vectors[i], rows[i]!.schema_version, "update");
        if (written) report.reembedded++;
      });
    });
    opts.onProgress?.({ done: report.reembedded, total });
  }
  await store.setMeta(META_EMBEDDER_IDENTITY, report.to_identity);
  db.prepare("DELETE FROM meta WHERE key = ?").run(META_VECTOR_SNAPSHOT_SEQ);
  if (opts.dataDir && opts.dataDir !== ":memory:") rmSync(join(opts.dataDir, "vectors"), { recursive: true, force: true });
  return report;
}
