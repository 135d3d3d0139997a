/** What the fake knows about one request once it is routed; tests match faults and holds on it. */
export interface RequestInfo {
  /** Arrival order, from 1. */
  readonly seq: number;
  readonly method: string;
  /** The concrete path, e.g. `/collections/mem/points/scroll`. */
  readonly path: string;
  /** The OpenAPI route template, e.g. `/collections/{collection_name}/points/scroll`. */
  readonly route: string;
  /** Qdrant's operationId for the route, e.g. `scroll_points`. */
  readonly operation: string;
  /** The collection (or alias) named in the path, before alias resolution. */
  readonly collection?: string;
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Either a predicate or a partial description that must match field by field. */
export type RequestMatcher =
  | ((req: RequestInfo) => boolean)
  | { readonly method?: string; readonly route?: string; readonly operation?: string; readonly collection?: string };

export function matchesRequest(m: RequestMatcher | undefined, req: RequestInfo): boolean {
  if (m === undefined) return true;
  if (typeof m === "function") return m(req);
  return (
    (m.method === undefined || m.method.toUpperCase() === req.method) &&
    (m.route === undefined || m.route === req.route) &&
    (m.operation === undefined || m.operation === req.operation) &&
    (m.collection === undefined || m.collection === req.collection)
  );
}
