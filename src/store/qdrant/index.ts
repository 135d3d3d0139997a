export { QdrantStore, type QdrantStoreOptions } from "./qdrant-store.js";
export { QdrantMigrationStore } from "./qdrant-migration-store.js";
export { aliasTarget, createLayout, ensureCollection, withSetupRetry } from "./collection-setup.js";
export {
  CLAIM_LEASE_MS,
  COLLECTION_META,
  DEFAULT_QDRANT_COLLECTION,
  DENSE_VECTOR,
  DERIVED_KEYS,
  LAYOUT_VERSION,
  LEXICAL_VECTOR,
  MAX_PAGE,
  META_PREFIX,
  MIGRATION_PIN_INDEX,
  MIN_QDRANT_VERSION,
  OPTIONAL_GATE_KEYS,
  PAYLOAD_INDEXES,
  RPC_BYTE_BUDGET,
  VIEW_CEILING_BYTES,
  physicalCollectionName,
} from "./layout.js";
export { attrsOf, decodePayload, encodePayload, scopePrefixOf } from "./point-payload.js";
export { faultError, mapQdrantError, qdrantFaultOf, QdrantUnavailableError, STORE_DEADLINE_TEXT, type QdrantFault } from "./qdrant-fault.js";
export { queryFilter, readFilter } from "./record-query-filter.js";
export { landedIn, REVISION_TRAIL_MAX, trailAfter, trailOver } from "./revision-trail.js";
export { QdrantSetupError, checkServerVersion, compareVersions } from "./server-version.js";
export { documentSparse, payloadSparse, querySparse } from "./sparse-vector.js";
