import { QdrantClient } from "@qdrant/js-client-rest";

/** A Qdrant deployment as `engram serve` and the operator verbs read it from ENGRAM_QDRANT_*. */
export type QdrantConnection = { url: string; apiKey?: string; collection?: string; timeoutMs?: number };

/**
 * The one way engram opens a Qdrant client, so the store and the operator
 * verbs reach a deployment alike. The client's own compatibility probe is
 * off: engram checks the server version itself (server-version.ts) and
 * refuses in its own words.
 */
export function connectQdrant(conn: QdrantConnection): QdrantClient {
  return new QdrantClient({ url: conn.url, apiKey: conn.apiKey, checkCompatibility: false, timeout: conn.timeoutMs ?? 30_000 });
}
