/** The vector index's tuning: what a caller may set, and what a snapshot keeps. */
export type VectorIndexOptions = {
  /** Live-record count from which the HNSW graph is built and used (default 4096). */
  hnswThreshold?: number;
  /** HNSW out-degree (default 16). Fixed once the graph exists. */
  m?: number;
  /** HNSW build-time beam width (default 64). Fixed once the graph exists. */
  efConstruction?: number;
  /**
   * Fewest neighbours a graph walk asks for (default 64): asking for more
   * than k and rescoring exactly is what buys back the recall the int8
   * copies in the graph lose.
   */
  efSearch?: number;
  /**
   * Most admitted records a filtered search with k <= efSearch over 100,000
   * records scores exactly instead of walking the graph (default 6000);
   * scaled for other k and sizes, see `#exactBudget`.
   */
  exactBudget?: number;
};

export type VectorIndexMode = {
  /**
   * "inline" (default) builds the graph inside the upsert that reaches the
   * threshold; "stepwise" leaves it to `buildGraphStep`, so a server can
   * build it in slices between requests while exact scans answer.
   */
  graphBuild?: "inline" | "stepwise";
};

/** How much wider a graph walk or a group's block scan looks each time it comes up short. */
export const FETCH_GROWTH = 4;

export type ResolvedOptions = Required<VectorIndexOptions>;

const DEFAULTS: ResolvedOptions = {
  hnswThreshold: 4096,
  m: 16,
  efConstruction: 64,
  efSearch: 64,
  exactBudget: 6000,
};

export function resolveOptions(opts: VectorIndexOptions): ResolvedOptions {
  const out: ResolvedOptions = { ...DEFAULTS };
  for (const name of Object.keys(DEFAULTS) as (keyof ResolvedOptions)[]) {
    const value = opts[name];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
    out[name] = value;
  }
  return out;
}

/**
 * The settings of an index loaded from a snapshot: those it was saved with,
 * the query-time ones `opts` gives winning; undefined when the saved ones
 * are not settings this version accepts.
 */
export function snapshotOptions(saved: VectorIndexOptions | undefined, opts: VectorIndexOptions): ResolvedOptions | undefined {
  let merged: ResolvedOptions;
  try {
    merged = resolveOptions(saved ?? {});
  } catch {
    return undefined;
  }
  for (const name of ["hnswThreshold", "efSearch", "exactBudget"] as const) {
    const value = opts[name];
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}
