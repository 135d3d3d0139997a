import type { QdrantClient } from "@qdrant/js-client-rest";
import type { Logger } from "../../model/logger.js";
import { statusOf } from "./collection-setup.js";
import { LEXICAL_VECTOR, MAX_PAGE } from "./layout.js";
import { payloadSparse, termIndex } from "./sparse-vector.js";

/**
 * Each term's weight as the collection's `idf` modifier gives it, in one
 * batch request: a one-term query of 1 scores any point holding the term by
 * exactly its weight (a point's values are all 1). A term no point holds
 * is left out, as the embedded store leaves it out.
 */
export async function collectionTermWeights(client: QdrantClient, alias: string, terms: readonly string[]): Promise<Map<string, number>> {
  const list = [...new Set(terms)];
  const weights = new Map<string, number>();
  if (list.length === 0) return weights;
  const answers = await client.queryBatch(alias, {
    searches: list.map((t) => ({ query: { indices: [termIndex(t)], values: [1] }, using: LEXICAL_VECTOR, limit: 1, with_payload: false, with_vector: false })),
  });
  answers.forEach((a, i) => {
    const score = a.points[0]?.score;
    if (typeof score === "number" && score > 0) weights.set(list[i]!, score);
  });
  return weights;
}

type Point = { id: string | number; payload?: Record<string, unknown> | null };

const PAGE = Math.min(256, MAX_PAGE);
const PROGRESS_EVERY_MS = 2_000;

/**
 * Rewrites every point's term vector from its payload, a page at a time,
 * each point only if its revision is still the one read (update_filter), so
 * a write racing the rebuild keeps the vector it wrote itself. Several
 * servers rebuilding at once write the same vectors. A point deleted
 * meanwhile fails its page, which is then written point by point.
 * Progress is logged with counts; `open` false stops it (the store closed).
 */
export async function rebuildTermVectors(client: QdrantClient, alias: string, log: Logger, open: () => boolean): Promise<void> {
  const total = (await client.count(alias, { exact: true })).count;
  log.info(`term vectors rebuilding: 0/${total} records`, { done: 0, total });
  let offset: string | number | undefined;
  let done = 0;
  let lastReport = Date.now();
  for (;;) {
    if (!open()) return;
    const page = await client.scroll(alias, {
      limit: PAGE,
      with_payload: ["content", "summary", "tags", "revision"],
      with_vector: false,
      ...(offset === undefined ? {} : { offset }),
    });
    const operations = (page.points as Point[]).flatMap((p) => {
      const sparse = payloadSparse(p.payload ?? {});
      if (!sparse) return [];
      const revision = p.payload?.revision;
      const update_filter =
        typeof revision === "string" ? { must: [{ key: "revision", match: { value: revision } }] } : { must: [{ is_empty: { key: "revision" } }] };
      return [{ update_vectors: { points: [{ id: p.id, vector: { [LEXICAL_VECTOR]: sparse } }], update_filter } }];
    });
    if (operations.length > 0) {
      try {
        await client.batchUpdate(alias, { wait: true, operations });
      } catch {
        for (const op of operations) {
          await client.batchUpdate(alias, { wait: true, operations: [op] }).catch((err: unknown) => {
            if (statusOf(err) !== 404) throw err;
          });
        }
      }
    }
    done += page.points.length;
    if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
      lastReport = Date.now();
      log.info(`term vectors rebuilding: ${Math.min(done, total)}/${total} records`, { done: Math.min(done, total), total });
    }
    const next = page.next_page_offset;
    if (next === undefined || next === null || typeof next === "object") break;
    offset = next as string | number;
  }
  log.info(`term vectors ready: ${done} records`, { done, total });
}
