import { matches } from "../record-filter.js";
import type { Neighbour, RecordQuery } from "../store.js";
import { clampCosine } from "../term-weight.js";
import type { Mirror } from "./mirror.js";
import type { VectorFilter } from "./vector-index.js";
import type { VectorKeeper } from "./vector-keeper.js";

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
  // One scope (or the gated set) goes over as the candidate list; no group
  // hint, so a large scope is walked on the graph rather than scanned whole for every record.
  const pool = query.onlyGated ? m.gatedRids : query.scope !== undefined ? (m.ridsByScope.get(query.scope) ?? new Set<number>()) : undefined;
  for (const id of ids) {
    const rid = m.ridById.get(id);
    if (rid === undefined || pending.has(rid)) continue;
    const row = index.rowOf(rid);
    if (!row) continue;
    const allow = (key: number): boolean => {
      if (key === rid || pending.has(key)) return false;
      const a = m.attrs.get(key);
      return a !== undefined && matches(a, query);
    };
    const filter: VectorFilter = pool !== undefined ? { candidates: pool, allow } : { allow };
    const hits = index.search(row, k, filter);
    out.set(
      id,
      hits.map((h) => ({ id: m.attrs.get(h.key)!.id, score: clampCosine(h.score) })),
    );
  }
  return out;
}
