/** The Qdrant backend: its Store and migration store, and the operator port (operator-port.ts) for the verbs that work on its collections. */
export { QdrantStore, type QdrantStoreOptions } from "./qdrant-store.js";
export { QdrantMigrationStore } from "./qdrant-migration-store.js";
export * from "./operator-port.js";
