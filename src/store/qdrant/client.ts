import { QdrantClient } from "@qdrant/js-client-rest";
import { traced, tracingOn } from "../../model/trace-hook.js";

/** A Qdrant deployment as `engram serve` and the operator verbs read it from ENGRAM_QDRANT_*. */
export type QdrantConnection = { url: string; apiKey?: string; collection?: string; timeoutMs?: number };

/**
 * The client calls engram makes, each one HTTP request to Qdrant. Only these
 * are traced: the client's other members may be synchronous, and a span
 * around them would change what they return.
 */
const REQUESTS: ReadonlySet<string> = new Set([
  "batchUpdate",
  "collectionExists",
  "count",
  "createCollection",
  "createPayloadIndex",
  "createSnapshot",
  "delete",
  "deleteCollection",
  "deletePayload",
  "getAliases",
  "getCollection",
  "query",
  "queryBatch",
  "retrieve",
  "scroll",
  "setPayload",
  "updateCollection",
  "updateCollectionAliases",
  "upsert",
  "versionInfo",
]);

/**
 * Each request in a client span of its own (`qdrant.<call>`), with the
 * server's address and the call's name; never a filter, a vector or a
 * payload. The span is made only while tracing is on (a server may start
 * tracing after its store is open); otherwise the call goes straight through.
 */
function tracedClient(client: QdrantClient, url: URL): QdrantClient {
  const address = {
    "db.system.name": "qdrant",
    "server.address": url.hostname,
    "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
  };
  const wrapped = new Map<string, unknown>();
  return new Proxy(client, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof prop !== "string" || typeof value !== "function" || !REQUESTS.has(prop)) return value;
      let w = wrapped.get(prop);
      if (w === undefined) {
        const call = value as (...args: unknown[]) => Promise<unknown>;
        const options = { kind: "client" as const, attributes: { ...address, "db.operation.name": prop } };
        w = (...args: unknown[]) => (tracingOn() ? traced(`qdrant.${prop}`, () => call.apply(target, args), options) : call.apply(target, args));
        wrapped.set(prop, w);
      }
      return w;
    },
  });
}

/**
 * The one way engram opens a Qdrant client, so the store and the operator
 * verbs reach a deployment alike. The client's own compatibility probe is
 * off: engram checks the server version itself (server-version.ts) and
 * refuses in its own words.
 */
export function connectQdrant(conn: QdrantConnection): QdrantClient {
  return tracedClient(new QdrantClient({ url: conn.url, apiKey: conn.apiKey, checkCompatibility: false, timeout: conn.timeoutMs ?? 30_000 }), new URL(conn.url));
}
