/** Keys of the store's meta table; one place so every reader agrees on them. */
export const META_EMBEDDER_IDENTITY = "embedder_identity";
export const META_VECTOR_SNAPSHOT_SEQ = "vector_snapshot_seq";
