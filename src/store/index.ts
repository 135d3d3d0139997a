/**
 * The storage port and what both backends share. The core, the operator
 * verbs and the app import storage through here; a backend is reached
 * through its own front (embedded/index.ts, qdrant/index.ts) and the
 * migration engine through migrations/index.ts.
 */
export { GATE_ON } from "./store.js";
export type { EarlyCandidates, GateRelax, ImportRow, ListPage, Neighbour, QueryVector, RecordQuery, ResolveResult, SchemaHistogram, Store, StorePart } from "./store.js";
export { RecordExistsError, RevisionConflictError, TargetsGoneError, TargetsSupersededError } from "./store-errors.js";
export { citationKey, isExpired, isScheduled, matches, readable, windowStateOf, type RecordAttrs } from "./record-filter.js";
export { decodeRecord, encodeRecord, type IndexedColumns } from "./codec.js";
export { CURRENT_SCHEMA_VERSION } from "./schema-version.js";
export { META_DATABASE_ID, META_EMBEDDER_IDENTITY, META_TERM_INDEX, META_VECTOR_SNAPSHOT_SEQ, META_WRITE_PROBE } from "./meta-keys.js";
export { errorName, faultCause, guardStoreFaults, storeFaultOf, StoreFaultError, type FaultObserver, type StoreAccess, type StoreFault } from "./store-fault.js";
export { clampCosine, termWeight } from "./term-weight.js";
export { newRevision } from "./revision.js";
export { isUuid } from "../model/uuid.js";
export { toFloat32 } from "./vector-bytes.js";
export { innerProducts } from "./inner-products.js";
export { quantize, type QuantizedVector } from "./quantized-vector.js";
export { TracedStore } from "./traced-store.js";
