/**
 * Loopback Qdrant fake: an in-process HTTP server the real `@qdrant/js-client-rest` talks to, so
 * the Qdrant store and its conformance suite run without a Qdrant binary.
 *
 *   const fake = await startQdrantFake({ version: "1.19.0" });
 *   const client = new QdrantClient({ url: fake.url, checkCompatibility: false });
 *   ...
 *   expect(fake.schemaViolations).toEqual([]);
 *   await fake.close();
 *
 * Standalone: `npm run qdrant:fake -- --port 6333` prints
 * `qdrant fake listening on http://127.0.0.1:6333` and serves until SIGTERM (exit 0).
 *
 * What it checks: every request's body and query string against Qdrant's published OpenAPI
 * schemas for 1.17 and 1.19 (read from ../shared/reference/qdrant, never copied into the repo;
 * absent folder = one warning line and no validation). A request failing either schema is
 * answered 400 and recorded in `schemaViolations`.
 *
 * What it reproduces (see ../shared/reference/qdrant/README.md): `GET /` version (configurable;
 * below 1.17 `update_mode` is silently ignored, like the real thing); collections with named dense
 * and sparse (`modifier: "idf"`) vectors, 404/409 wording, PATCH of metadata and strict mode;
 * aliases applied atomically per request and resolved on every collection/points route; payload
 * indexes; upsert with `update_mode` and `update_filter`; retrieve, delete, set/overwrite/delete/
 * clear payload with `points` beating `filter`; scroll paging and the `order_by` rules (range
 * index required, no `offset`, no `next_page_offset`, one row per value); exact count; the Query
 * API with dense cosine, sparse dot product with Qdrant's IDF, point-id queries, nested prefetch
 * and RRF (k = 2, optional weights); `points/batch`; snapshot records; strict-mode 400s on
 * filters over unindexed keys; filters with must/should/must_not/min_should, match value/any/
 * except/text/phrase, numeric and datetime range, values_count, is_empty/is_null, has_id,
 * has_vector, nested.
 *
 * Test controls: `faults` (500 or any status, 429 with Retry-After, out-of-disk 500, read-only
 * 403, hang, socket reset; per route/operation/predicate or the next N requests),
 * `refuseConnections()`/`acceptConnections()`, `holds` (park a matching request before it
 * applies or before it answers, until released), `requests` (arrival log), `state` (direct view).
 *
 * What it cannot reproduce: distributed shards, replicas, write consistency and shard transfers;
 * HNSW approximation (search is exact, so recall is perfect); quantization, on-disk storage,
 * optimizers, WAL recovery and crash timing; real snapshots (records only, nothing to restore)
 * and anything across nodes; `wait=false` asynchrony (every write is applied before the reply);
 * full-text index tokenizers beyond word splitting; geo filters; DBSF fusion, formula, MMR,
 * recommend/discover/context queries, multivectors, inference; rate limiting and memory limits
 * except as injected faults; read-only and rate-limit message texts are modelled, not copied.
 */
export { FakeCollection, DEFAULT_VECTOR, type StoredPoint, type SparseVector, type UpdateMode } from "./collection.js";
export { FakeQdrantError } from "./fake-error.js";
export { FakeState } from "./fake-state.js";
export { FaultInjector, OUT_OF_DISK_MESSAGE, type Fault, type FaultHandle, type FaultRule } from "./faults.js";
export { matchesFilter, filterKeyNeeds } from "./filter.js";
export { HoldRegistry, type Hold, type HoldPhase } from "./holds.js";
export { OpenApiRequestValidator, SCHEMA_VERSIONS, type SchemaVersion, type SchemaViolation } from "./openapi-validator.js";
export { idf, QDRANT_RRF_K } from "./query.js";
export type { RequestInfo, RequestMatcher } from "./request-info.js";
export { ROUTES, matchRoute, type Route } from "./routes.js";
export { findSchemaDir } from "./schema-dir.js";
export { startQdrantFake, type QdrantFake, type QdrantFakeOptions, type RecordedRequest } from "./server.js";
