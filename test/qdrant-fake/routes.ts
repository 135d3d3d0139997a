import type { FakeCollection, UpdateMode } from "./collection.js";
import { badRequest, collectionNotFound, pointNotFound } from "./fake-error.js";
import type { FakeState } from "./fake-state.js";
import { canonicalId } from "./point-id.js";
import { query } from "./query.js";
import { count, retrieve, scroll } from "./reads.js";

type Json = Record<string, unknown>;

export interface RouteContext {
  readonly state: FakeState;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: Json;
  /** The server version answers `GET /`; below 1.17, `update_mode` is ignored as Qdrant did. */
  readonly version: string;
}

export interface Route {
  readonly method: string;
  readonly route: string;
  readonly operation: string;
  /** Writes are what a read-only fault refuses. */
  readonly write: boolean;
  /** `GET /` and the health probes answer bare, without the result envelope, as Qdrant does. */
  readonly bare?: boolean;
  readonly handle: (ctx: RouteContext) => unknown;
}

const atLeast = (version: string, major: number, minor: number): boolean => {
  const [ma = 0, mi = 0] = version.split(".").map(Number);
  return ma > major || (ma === major && mi >= minor);
};

const updateResult = (ctx: RouteContext): Json => ({
  operation_id: ctx.state.nextOperationId(),
  status: ctx.query.get("wait") === "true" ? "completed" : "acknowledged",
});

const col = (ctx: RouteContext): FakeCollection => ctx.state.resolve(ctx.params.collection_name!);

function upsert(c: FakeCollection, body: Json, version: string): void {
  // An older server does not know `update_mode` and silently upserts: reproduce that trap.
  const mode = atLeast(version, 1, 17) ? ((body.update_mode as UpdateMode | null | undefined) ?? "upsert") : "upsert";
  const filter = body.update_filter as Json | null | undefined;
  if (Array.isArray(body.points)) {
    c.upsert(body.points as Array<{ id: unknown; vector: unknown; payload?: unknown }>, mode, filter);
  } else if (body.batch) {
    const b = body.batch as { ids: unknown[]; vectors: unknown; payloads?: unknown[] | null };
    const vectorsFor = (i: number): unknown =>
      Array.isArray(b.vectors)
        ? b.vectors[i]
        : Object.fromEntries(Object.entries(b.vectors as Json).map(([n, list]) => [n, (list as unknown[])[i]]));
    c.upsert(b.ids.map((id, i) => ({ id, vector: vectorsFor(i), payload: b.payloads?.[i] })), mode, filter);
  } else throw badRequest("Either `points` or `batch` is required");
}

/** One operation of `/points/batch`, by its tag. */
function batchOperation(c: FakeCollection, op: Json, version: string): void {
  if (op.upsert) upsert(c, op.upsert as Json, version);
  else if (op.delete) c.deletePoints(op.delete as Json);
  else if (op.set_payload) c.setPayload(op.set_payload as Json);
  else if (op.overwrite_payload) c.overwritePayload(op.overwrite_payload as Json);
  else if (op.delete_payload) c.deletePayload(op.delete_payload as Json);
  else if (op.clear_payload) c.clearPayload(op.clear_payload as Json);
  else if (op.update_vectors) c.updateVectors(op.update_vectors as Json);
  else if (op.delete_vectors) c.deleteVectors(op.delete_vectors as Json);
  else throw badRequest("unknown batch operation");
}

const r = (method: string, route: string, operation: string, write: boolean, handle: Route["handle"]): Route => ({
  method,
  route,
  operation,
  write,
  handle,
});

/**
 * The REST surface a store needs. `/points/search`, `/recommend` and `/discover` are absent on
 * purpose (removed in 1.19; the store must use `/points/query`), so they answer 404 everywhere.
 */
export const ROUTES: readonly Route[] = [
  { ...r("GET", "/", "root", false, (ctx) => ({ title: "qdrant - vector search engine", version: ctx.version, commit: "fake" })), bare: true },
  { ...r("GET", "/healthz", "healthz", false, () => "healthz check passed"), bare: true },
  r("GET", "/collections", "get_collections", false, (ctx) => ({
    collections: [...ctx.state.collections.keys()].map((name) => ({ name })),
  })),
  r("GET", "/aliases", "get_collections_aliases", false, (ctx) => ({
    aliases: [...ctx.state.aliases].map(([alias_name, collection_name]) => ({ alias_name, collection_name })),
  })),
  r("POST", "/collections/aliases", "update_aliases", true, (ctx) => {
    ctx.state.changeAliases(ctx.body.actions as Json[]);
    return true;
  }),
  r("GET", "/collections/{collection_name}", "get_collection", false, (ctx) => col(ctx).info()),
  r("PUT", "/collections/{collection_name}", "create_collection", true, (ctx) => {
    ctx.state.create(ctx.params.collection_name!, ctx.body);
    return true;
  }),
  r("PATCH", "/collections/{collection_name}", "update_collection", true, (ctx) => {
    col(ctx).update(ctx.body);
    return true;
  }),
  r("DELETE", "/collections/{collection_name}", "delete_collection", true, (ctx) => ctx.state.drop(ctx.params.collection_name!)),
  r("GET", "/collections/{collection_name}/exists", "collection_exists", false, (ctx) => ({
    exists: ctx.state.collections.has(ctx.params.collection_name!),
  })),
  r("GET", "/collections/{collection_name}/aliases", "get_collection_aliases", false, (ctx) => {
    const name = ctx.params.collection_name!;
    if (!ctx.state.collections.has(name)) throw collectionNotFound(name);
    return {
      aliases: [...ctx.state.aliases]
        .filter(([, target]) => target === name)
        .map(([alias_name, collection_name]) => ({ alias_name, collection_name })),
    };
  }),
  r("PUT", "/collections/{collection_name}/index", "create_field_index", true, (ctx) => {
    col(ctx).createIndex(ctx.body.field_name as string, ctx.body.field_schema);
    return updateResult(ctx);
  }),
  r("DELETE", "/collections/{collection_name}/index/{field_name}", "delete_field_index", true, (ctx) => {
    col(ctx).indexes.delete(ctx.params.field_name!);
    return updateResult(ctx);
  }),
  r("POST", "/collections/{collection_name}/snapshots", "create_snapshot", true, (ctx) => {
    const c = col(ctx);
    const list = ctx.state.snapshots.get(c.name) ?? [];
    const creation_time = new Date().toISOString().slice(0, 19);
    const snap = { name: `${c.name}-fake-${list.length + 1}.snapshot`, creation_time, size: 0, checksum: null };
    ctx.state.snapshots.set(c.name, [...list, snap]);
    return snap;
  }),
  r("GET", "/collections/{collection_name}/snapshots", "list_snapshots", false, (ctx) => ctx.state.snapshots.get(col(ctx).name) ?? []),
  r("GET", "/collections/{collection_name}/points/{id}", "get_point", false, (ctx) => {
    const c = col(ctx);
    const id = canonicalId(ctx.params.id);
    const p = c.get(id);
    if (!p) throw pointNotFound(id);
    return c.record(p, true, true, true);
  }),
  r("POST", "/collections/{collection_name}/points", "get_points", false, (ctx) => retrieve(col(ctx), ctx.body)),
  r("PUT", "/collections/{collection_name}/points", "upsert_points", true, (ctx) => {
    upsert(col(ctx), ctx.body, ctx.version);
    return updateResult(ctx);
  }),
  r("POST", "/collections/{collection_name}/points/delete", "delete_points", true, (ctx) => {
    col(ctx).deletePoints(ctx.body);
    return updateResult(ctx);
  }),
  r("PUT", "/collections/{collection_name}/points/vectors", "update_vectors", true, (ctx) => {
    col(ctx).updateVectors(ctx.body);
    return updateResult(ctx);
  }),
  r("POST", "/collections/{collection_name}/points/vectors/delete", "delete_vectors", true, (ctx) => {
    col(ctx).deleteVectors(ctx.body);
    return updateResult(ctx);
  }),
  r("POST", "/collections/{collection_name}/points/payload", "set_payload", true, (ctx) => {
    col(ctx).setPayload(ctx.body);
    return updateResult(ctx);
  }),
  r("PUT", "/collections/{collection_name}/points/payload", "overwrite_payload", true, (ctx) => {
    col(ctx).overwritePayload(ctx.body);
    return updateResult(ctx);
  }),
  r("POST", "/collections/{collection_name}/points/payload/delete", "delete_payload", true, (ctx) => {
    col(ctx).deletePayload(ctx.body);
    return updateResult(ctx);
  }),
  r("POST", "/collections/{collection_name}/points/payload/clear", "clear_payload", true, (ctx) => {
    col(ctx).clearPayload(ctx.body);
    return updateResult(ctx);
  }),
  r("POST", "/collections/{collection_name}/points/batch", "batch_update", true, (ctx) => {
    const c = col(ctx);
    // Applied in order, not atomically: an error stops the batch with earlier operations kept.
    return (ctx.body.operations as Json[]).map((op) => {
      batchOperation(c, op, ctx.version);
      return updateResult(ctx);
    });
  }),
  r("POST", "/collections/{collection_name}/points/scroll", "scroll_points", false, (ctx) => scroll(col(ctx), ctx.body)),
  r("POST", "/collections/{collection_name}/points/count", "count_points", false, (ctx) => count(col(ctx), ctx.body)),
  r("POST", "/collections/{collection_name}/points/query", "query_points", false, (ctx) => query(col(ctx), ctx.body)),
  r("POST", "/collections/{collection_name}/points/query/batch", "query_batch_points", false, (ctx) =>
    (ctx.body.searches as Json[]).map((s) => query(col(ctx), s)),
  ),
];

interface Compiled {
  readonly route: Route;
  readonly regex: RegExp;
  readonly names: string[];
  readonly literalSegments: number;
}

const COMPILED: Compiled[] = ROUTES.map((route) => {
  const names: string[] = [];
  const pattern = route.route
    .split("/")
    .map((seg) => {
      const m = /^\{(.+)\}$/.exec(seg);
      if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(m[1]!);
      return "([^/]+)";
    })
    .join("/");
  return { route, regex: new RegExp(`^${pattern}$`), names, literalSegments: route.route.split("/").filter((s) => s && !s.startsWith("{")).length };
}).sort((a, b) => b.literalSegments - a.literalSegments);

/** Literal segments win over parameters (`/collections/aliases` is not a collection named "aliases"). */
export function matchRoute(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const c of COMPILED) {
    if (c.route.method !== method) continue;
    const m = c.regex.exec(path);
    if (!m) continue;
    return { route: c.route, params: Object.fromEntries(c.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) };
  }
  return undefined;
}
