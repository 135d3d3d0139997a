import type { Neighbour, RecordQuery } from "../store.js";
import { clampCosine } from "../term-weight.js";
import { isUuid } from "../../model/uuid.js";
import { DENSE_VECTOR, MAX_PAGE } from "./layout.js";
import type { QdrantPoints } from "./points.js";
import { queryFilter } from "./record-query-filter.js";

/**
 * What the operator's lifecycle sweeps (prune-expired, spine-review purge
 * and consolidate) ask of the collection beyond the record port: deleting
 * by id a page at a time, and each record's nearest neighbours by its own
 * stored vector, many records per Query API batch request, so no vector
 * leaves Qdrant.
 */

/** Searches per `/points/query/batch` request: each answers in Qdrant's HNSW index, so a batch costs about as many index walks. */
const NEIGHBOUR_BATCH = 64;

/** Which of these ids name a point now (one retrieve, no payload). */
async function existing(points: QdrantPoints, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = await points.call("read", () => points.client.retrieve(points.alias, { ids: [...ids], with_payload: false, with_vector: false }));
  return new Set(found.map((p) => String(p.id)));
}

/** Deletes the points a page at a time; how many existed just before their page was deleted. */
export async function deletePoints(points: QdrantPoints, ids: readonly string[]): Promise<number> {
  const valid = ids.filter(isUuid);
  let gone = 0;
  for (let i = 0; i < valid.length; i += MAX_PAGE) {
    const page = valid.slice(i, i + MAX_PAGE);
    gone += (await existing(points, page)).size;
    await points.call("write", () => points.client.delete(points.alias, { wait: true, ordering: "strong", points: page }));
  }
  return gone;
}

/**
 * Each point's `k` nearest under the query's filter, itself excluded. The
 * ids are checked first, as a query naming a point that was deleted
 * meanwhile would fail its whole batch.
 */
export async function nearestPoints(points: QdrantPoints, ids: readonly string[], k: number, query: RecordQuery): Promise<Map<string, Neighbour[]>> {
  const out = new Map<string, Neighbour[]>();
  if (k <= 0) return out;
  const base = queryFilter(query);
  const valid = ids.filter(isUuid);
  for (let i = 0; i < valid.length; i += NEIGHBOUR_BATCH) {
    const present = await existing(points, valid.slice(i, i + NEIGHBOUR_BATCH));
    const part = valid.slice(i, i + NEIGHBOUR_BATCH).filter((id) => present.has(id));
    if (part.length === 0) continue;
    const searches = part.map((id) => ({
      query: id,
      using: DENSE_VECTOR,
      filter: { ...base, must_not: [...(base.must_not ?? []), { has_id: [id] }] },
      limit: k,
      with_payload: false,
      with_vector: false,
    }));
    const answers = await points.call("read", () => points.client.queryBatch(points.alias, { searches: searches as never }));
    answers.forEach((a, j) => {
      out.set(
        part[j]!,
        a.points.map((p) => ({ id: String(p.id), score: clampCosine(p.score) })),
      );
    });
  }
  return out;
}
