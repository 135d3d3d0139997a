import { badRequest, pointNotFound, wrongInput } from "./fake-error.js";
import { filterKeyNeeds, matchesFilter, type FilterTarget } from "./filter.js";
import { canonicalId, compareIds, idKey, type PointId } from "./point-id.js";
import { deleteAtPath, omitPaths, pickPaths, setAtPath, valuesAt, type Payload } from "./payload-path.js";

type Json = Record<string, unknown>;

export interface SparseVector {
  readonly indices: number[];
  readonly values: number[];
}
export type StoredVector = number[] | SparseVector;

export interface StoredPoint {
  readonly id: PointId;
  vectors: Map<string, StoredVector>;
  payload: Payload;
}

export interface DenseParams {
  readonly size: number;
  readonly distance: string;
}

/** The unnamed default vector is called "" inside Qdrant; so it is here. */
export const DEFAULT_VECTOR = "";

export const isSparse = (v: StoredVector): v is SparseVector => !Array.isArray(v);

function normalize(v: number[]): number[] {
  const norm = Math.hypot(...v);
  return norm === 0 ? v.slice() : v.map((x) => x / norm);
}

export type UpdateMode = "upsert" | "insert_only" | "update_only";

/** One collection's state: points, vectors config, payload indexes, strict mode and metadata. */
export class FakeCollection {
  readonly points = new Map<string, StoredPoint>();
  readonly indexes = new Map<string, { type: string; params: Json | null }>();
  readonly dense = new Map<string, DenseParams>();
  readonly sparse = new Map<string, { modifier: string | null }>();
  readonly createdAt = new Date().toISOString();
  private readonly unnamed: boolean;
  strictMode: Json;
  metadata: Json;

  constructor(
    readonly name: string,
    private readonly body: Json,
  ) {
    const vectors = body.vectors as Json | undefined;
    this.unnamed = vectors !== undefined && typeof vectors.size === "number";
    if (vectors && this.unnamed) this.dense.set(DEFAULT_VECTOR, vectors as unknown as DenseParams);
    else if (vectors) for (const [n, p] of Object.entries(vectors)) this.dense.set(n, p as DenseParams);
    for (const [n, p] of Object.entries((body.sparse_vectors as Json | undefined) ?? {})) {
      this.sparse.set(n, { modifier: ((p as Json | null)?.modifier as string | undefined) ?? null });
    }
    this.strictMode = { ...((body.strict_mode_config as Json | undefined) ?? {}) };
    this.metadata = { ...((body.metadata as Json | undefined) ?? {}) };
  }

  /** PATCH /collections/{name}: metadata and strict mode merge key by key, as Qdrant's diff does. */
  update(diff: Json): void {
    if (diff.metadata) this.metadata = { ...this.metadata, ...(diff.metadata as Json) };
    if (diff.strict_mode_config) this.strictMode = { ...this.strictMode, ...(diff.strict_mode_config as Json) };
  }

  // ---- strict mode and indexes -------------------------------------------------------------

  private strict(flag: "unindexed_filtering_retrieve" | "unindexed_filtering_update"): boolean {
    return this.strictMode.enabled === true && this.strictMode[flag] === false;
  }

  /** Strict mode refuses a filter on a key no suitable payload index covers. */
  checkFilter(filter: Json | null | undefined, use: "retrieve" | "update"): void {
    if (!filter || !this.strict(use === "retrieve" ? "unindexed_filtering_retrieve" : "unindexed_filtering_update")) return;
    for (const need of filterKeyNeeds(filter)) {
      const index = this.indexes.get(need.key);
      if (index && (need.types.length === 0 || need.types.includes(index.type))) continue;
      const types = need.types.length > 0 ? need.types : ["keyword", "integer", "float", "bool", "datetime", "uuid", "text"];
      throw badRequest(
        `Index required but not found for "${need.key}" of one of the following types: [${types.join(", ")}]. ` +
          "Help: Create an index for this key or use a different filter.",
      );
    }
  }

  createIndex(field: string, schema: unknown): void {
    if (typeof schema === "string") this.indexes.set(field, { type: schema, params: null });
    else if (schema && typeof schema === "object") {
      const params = schema as Json;
      this.indexes.set(field, { type: params.type as string, params });
    } else throw badRequest(`field_schema is required to create an index for "${field}"`);
  }

  /** Keys usable by `order_by`: Qdrant needs an index that supports range lookups. */
  hasRangeIndex(key: string): boolean {
    const index = this.indexes.get(key);
    if (!index) return false;
    if (index.type === "datetime" || index.type === "float") return true;
    return index.type === "integer" && index.params?.range !== false;
  }

  // ---- vectors ------------------------------------------------------------------------------

  parseVectors(raw: unknown): Map<string, StoredVector> {
    const out = new Map<string, StoredVector>();
    const entries: Array<[string, unknown]> = Array.isArray(raw)
      ? [[DEFAULT_VECTOR, raw]]
      : Object.entries((raw as Json | null) ?? {});
    for (const [name, value] of entries) {
      if (Array.isArray(value)) {
        const params = this.dense.get(name);
        if (!params) throw wrongInput(`Not existing vector name error: ${name}`);
        if (value.length !== params.size) {
          throw wrongInput(`Vector dimension error: expected dim: ${params.size}, got ${value.length}`);
        }
        const v = value as number[];
        out.set(name, params.distance === "Cosine" ? normalize(v) : v.slice());
      } else {
        if (!this.sparse.has(name)) throw wrongInput(`Not existing vector name error: ${name}`);
        const sv = value as SparseVector;
        if (sv.indices.length !== sv.values.length) throw wrongInput("Sparse vector indices and values must be the same length");
        if (new Set(sv.indices).size !== sv.indices.length) throw wrongInput("Sparse vector indices must be unique");
        // Qdrant keeps sparse vectors sorted by index.
        const order = sv.indices.map((_, i) => i).sort((a, b) => sv.indices[a]! - sv.indices[b]!);
        out.set(name, { indices: order.map((i) => sv.indices[i]!), values: order.map((i) => sv.values[i]!) });
      }
    }
    return out;
  }

  // ---- points -------------------------------------------------------------------------------

  target(p: StoredPoint): FilterTarget {
    return { id: p.id, payload: p.payload, vectorNames: new Set(p.vectors.keys()) };
  }

  /** Points in Qdrant's id order, optionally filtered. */
  sorted(filter?: Json | null): StoredPoint[] {
    return [...this.points.values()]
      .filter((p) => matchesFilter(this.target(p), filter))
      .sort((a, b) => compareIds(a.id, b.id));
  }

  get(id: PointId): StoredPoint | undefined {
    return this.points.get(idKey(id));
  }

  /**
   * Upsert with Qdrant's conditional forms: `insert_only` leaves an existing point untouched,
   * `update_only` skips absent ones, and `update_filter` replaces an existing point only when it
   * matches (new points are inserted regardless).
   */
  upsert(points: ReadonlyArray<{ id: unknown; vector: unknown; payload?: unknown }>, mode: UpdateMode, updateFilter?: Json | null): void {
    if (updateFilter) this.checkFilter(updateFilter, "update");
    const parsed = points.map((p) => ({
      id: canonicalId(p.id),
      vectors: this.parseVectors(p.vector),
      payload: structuredClone((p.payload as Payload | null | undefined) ?? {}),
    }));
    for (const p of parsed) {
      const existing = this.get(p.id);
      if (existing && mode === "insert_only") continue;
      if (!existing && mode === "update_only") continue;
      if (existing && updateFilter && !matchesFilter(this.target(existing), updateFilter)) continue;
      this.points.set(idKey(p.id), p);
    }
  }

  /** `points` beats `filter` when both are given: the filter is silently ignored, as in Qdrant. */
  select(points: unknown[] | null | undefined, filter: Json | null | undefined, mustExist: boolean): StoredPoint[] {
    if (points) {
      return points.map((raw) => {
        const id = canonicalId(raw);
        const p = this.get(id);
        if (!p && mustExist) throw pointNotFound(id);
        return p;
      }).filter((p): p is StoredPoint => p !== undefined);
    }
    if (filter) {
      this.checkFilter(filter, "update");
      return this.sorted(filter);
    }
    throw badRequest("Either `points` or `filter` is required");
  }

  deletePoints(selector: Json): void {
    for (const p of this.select(selector.points as unknown[] | undefined, selector.filter as Json | undefined, false)) {
      this.points.delete(idKey(p.id));
    }
  }

  setPayload(body: Json): void {
    const targets = this.select(body.points as unknown[] | undefined, body.filter as Json | undefined, true);
    for (const p of targets) {
      const patch = structuredClone(body.payload as Payload);
      if (typeof body.key === "string") setAtPath(p.payload, body.key, patch);
      else Object.assign(p.payload, patch);
    }
  }

  overwritePayload(body: Json): void {
    const targets = this.select(body.points as unknown[] | undefined, body.filter as Json | undefined, true);
    for (const p of targets) p.payload = structuredClone(body.payload as Payload);
  }

  deletePayload(body: Json): void {
    const targets = this.select(body.points as unknown[] | undefined, body.filter as Json | undefined, true);
    for (const p of targets) for (const key of body.keys as string[]) deleteAtPath(p.payload, key);
  }

  clearPayload(selector: Json): void {
    for (const p of this.select(selector.points as unknown[] | undefined, selector.filter as Json | undefined, true)) p.payload = {};
  }

  /** With `update_filter`, a point that does not match it is left as it is (a missing point is still an error). */
  updateVectors(body: Json): void {
    const updateFilter = body.update_filter as Json | null | undefined;
    if (updateFilter) this.checkFilter(updateFilter, "update");
    for (const raw of body.points as Array<{ id: unknown; vector: unknown }>) {
      const p = this.get(canonicalId(raw.id));
      if (!p) throw pointNotFound(canonicalId(raw.id));
      if (updateFilter && !matchesFilter(this.target(p), updateFilter)) continue;
      for (const [n, v] of this.parseVectors(raw.vector)) p.vectors.set(n, v);
    }
  }

  deleteVectors(body: Json): void {
    for (const p of this.select(body.points as unknown[] | undefined, body.filter as Json | undefined, true)) {
      for (const n of body.vector as string[]) p.vectors.delete(n);
    }
  }

  // ---- output -------------------------------------------------------------------------------

  projectPayload(p: StoredPoint, withPayload: unknown, byDefault: boolean): Payload | null {
    const wp = withPayload === undefined || withPayload === null ? byDefault : withPayload;
    if (wp === true) return structuredClone(p.payload);
    if (wp === false) return null;
    if (Array.isArray(wp)) return pickPaths(p.payload, wp as string[]);
    const sel = wp as Json;
    if (Array.isArray(sel.include)) return pickPaths(p.payload, sel.include as string[]);
    if (Array.isArray(sel.exclude)) return omitPaths(p.payload, sel.exclude as string[]);
    return structuredClone(p.payload);
  }

  projectVector(p: StoredPoint, withVector: unknown): unknown {
    if (withVector === undefined || withVector === null || withVector === false) return null;
    const names = withVector === true ? [...p.vectors.keys()] : (withVector as string[]);
    if (this.unnamed && names.length === 1 && names[0] === DEFAULT_VECTOR) return p.vectors.get(DEFAULT_VECTOR) ?? null;
    if (this.unnamed && withVector === true) return p.vectors.get(DEFAULT_VECTOR) ?? null;
    return Object.fromEntries(names.filter((n) => p.vectors.has(n)).map((n) => [n, structuredClone(p.vectors.get(n))]));
  }

  record(p: StoredPoint, withPayload: unknown, withVector: unknown, payloadByDefault: boolean): Json {
    return { id: p.id, payload: this.projectPayload(p, withPayload, payloadByDefault), vector: this.projectVector(p, withVector) };
  }

  info(): Json {
    const payloadSchema = Object.fromEntries(
      [...this.indexes].map(([key, index]) => [
        key,
        {
          data_type: index.type,
          ...(index.params ? { params: index.params } : {}),
          points: [...this.points.values()].filter((p) => valuesAt(p.payload, key).length > 0).length,
        },
      ]),
    );
    return {
      status: "green",
      optimizer_status: "ok",
      indexed_vectors_count: 0,
      points_count: this.points.size,
      segments_count: 1,
      config: {
        params: {
          vectors: this.body.vectors ?? {},
          ...(this.body.sparse_vectors ? { sparse_vectors: this.body.sparse_vectors } : {}),
          shard_number: 1,
          replication_factor: 1,
          write_consistency_factor: 1,
          on_disk_payload: true,
        },
        hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false },
        optimizer_config: {
          deleted_threshold: 0.2,
          vacuum_min_vector_number: 1000,
          default_segment_number: 0,
          max_segment_size: null,
          memmap_threshold: null,
          indexing_threshold: 10000,
          flush_interval_sec: 5,
          max_optimization_threads: null,
        },
        wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
        quantization_config: null,
        strict_mode_config: this.strictMode,
        ...(Object.keys(this.metadata).length > 0 ? { metadata: this.metadata } : {}),
      },
      payload_schema: payloadSchema,
    };
  }
}
