import { matches } from "../record-filter.js";
import type { Neighbour, RecordQuery } from "../store.js";
import { clampCosine } from "../term-weight.js";
import type { Mirror } from "./mirror.js";
import type { VectorKeeper } from "./vector/vector-keeper.js";

/**
 * The Store's `neighbours` on the embedded store: each record's own row of
 * the vector index is the query, so nothing is read from SQLite and the
 * graph answers a large store without comparing every pair. A record the
 * index has not caught up with (a server's warm-up still running) is
 * neither asked about nor handed out, as its row may be stale.
 */
export function nearestOf(m: Mirror, keeper: VectorKeeper, ids: readonly string[], k: number, query: RecordQuery): Map<string, Neighbour[]> {
  m.sync();
  const index = keeper.vectors();
  const pending = m.pending;
  const out = new Map<string, Neighbour[]>();
  if (k <= 0) return out;
  // The query is asked once per record here, not once per record per search:
  // the admitted set goes to every search as its candidate list, which the
  // graph walk consults only for the neighbours it fetches.
  const pool: Iterable<number> = query.onlyGated ? m.gatedRids : query.scope !== undefined ? (m.ridsByScope.get(query.scope) ?? []) : m.attrs.keys();
  const admitted = new Set<number>();
  for (const rid of pool) {
    const a = m.attrs.get(rid);
    if (a !== undefined && !pending.has(rid) && matches(a, query)) admitted.add(rid);
  }
  const asked = new Map<number, string>();
  for (const id of ids) {
    const rid = m.ridById.get(id);
    if (rid !== undefined && !pending.has(rid)) asked.set(rid, id);
  }
  for (const [rid, hits] of index.nearestMany([...asked.keys()], k, admitted)) {
    out.set(
      asked.get(rid)!,
      hits.map((h) => ({ id: m.attrs.get(h.key)!.id, score: clampCosine(h.score) })),
    );
  }
  return out;
}
