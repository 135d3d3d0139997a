/**
 * The Qdrant operator port: what an operator verb may use on a Qdrant
 * deployment besides the Store port. `engram reindex` fills the next
 * physical collection beside the one the alias serves and then moves the
 * alias; `engram export` reads the one physical collection the alias named
 * when it began, so a reindex meanwhile cannot mix two embedders under one
 * header; and a verb first asks whether the alias names a collection at
 * all, before anything could create one. None of that is a Store operation
 * (a Store is the collection behind the alias), so these verbs speak to
 * Qdrant themselves, with the client, layout, payload codec and fault
 * mapping the store uses, and nothing else of it.
 */
export { connectQdrant, type QdrantConnection } from "./client.js";
export { aliasTarget, createLayout } from "./collection-setup.js";
export {
  DEFAULT_QDRANT_COLLECTION,
  DENSE_VECTOR,
  LEXICAL_VECTOR,
  MAX_PAGE,
  META_PREFIX,
  RPC_BYTE_BUDGET,
  VIEW_CEILING_BYTES,
  physicalCollectionName,
} from "./layout.js";
export { decodePayload } from "./point-payload.js";
export { mapQdrantError } from "./qdrant-fault.js";
export { QdrantSetupError, checkServerVersion } from "./server-version.js";
export { payloadSparse } from "./sparse-vector.js";
