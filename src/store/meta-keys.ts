/** Keys of the store's meta table; one place so every reader agrees on them. */
export const META_EMBEDDER_IDENTITY = "embedder_identity";
/** Written by earlier versions to say which change a snapshot reflected; snapshots now carry that themselves. */
export const META_VECTOR_SNAPSHOT_SEQ = "vector_snapshot_seq";
/** A random id given to a database file, so a vector snapshot can tell which database it was taken from. */
export const META_DATABASE_ID = "database_id";
/** Rewritten by a store that cannot write, to learn when it can again. */
export const META_WRITE_PROBE = "write_probe";
/** "complete" once every record's terms are in the term index; absent while it is being built. */
export const META_TERM_INDEX = "term_index";
