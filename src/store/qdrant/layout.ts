/**
 * The shape of engram's data in Qdrant, in one place: docs/qdrant.md is
 * bound to these constants by a test, so the operator guide cannot drift.
 */

/** The first server line whose upsert honours `update_mode`; an older one silently upserts. */
export const MIN_QDRANT_VERSION = "1.17.0";

/** The alias a deployment reaches its collection through, unless ENGRAM_QDRANT_COLLECTION names another. */
export const DEFAULT_QDRANT_COLLECTION = "engram";

/** The physical collection behind an alias: a reindex or a dimension change makes the next one and moves the alias. */
export function physicalCollectionName(alias: string, generation = 1): string {
  return `${alias}-g${generation}`;
}

/** Named vectors: the embedder's dense vector (cosine) and the lexical lane's sparse BM25 vector. */
export const DENSE_VECTOR = "dense";
export const LEXICAL_VECTOR = "lexical";

/** Payload keys only the store writes (on every write, or by a supersede or a migration) and strips on every read. */
export const DERIVED_KEYS = {
  /** `kind\u0000ref` of every citation: citation-edge lookups. */
  citationKeys: "citation_keys",
  /** The scope up to and including its first ":" (discovery:, rule:), "" without one. */
  scopePrefix: "scope_prefix",
  /** A supersede's claim on a target: the new record's id and the lease's end (Unix ms). */
  claimBy: "claim_by",
  claimUntil: "claim_until",
  /** The run token of the migration that pinned the record into its backlog (see qdrant-migration-store.ts). */
  migratePin: "migrate_pin",
  /** The revisions the point had before this one, newest first: how a read-back tells "mine landed, then another" from "mine lost" (revision-trail.ts). */
  revisionTrail: "revision_trail",
} as const;

/** The pin's index: a migration filters on it, and creates it on a collection made before it existed. */
export const MIGRATION_PIN_INDEX = { key: DERIVED_KEYS.migratePin, schema: "keyword" } as const;

/**
 * Every payload key a filter or a conditional write names, with its index.
 * Strict mode is on, so a filter over a key missing here fails in tests.
 */
export const PAYLOAD_INDEXES = [
  { key: "owner", schema: { type: "keyword", is_tenant: true } },
  { key: "scope", schema: "keyword" },
  { key: DERIVED_KEYS.scopePrefix, schema: "keyword" },
  { key: "visibility", schema: "keyword" },
  { key: "category", schema: "keyword" },
  { key: "kind", schema: "keyword" },
  { key: "tags", schema: "keyword" },
  { key: "short_id", schema: "keyword" },
  { key: DERIVED_KEYS.citationKeys, schema: "keyword" },
  { key: "created_at", schema: "datetime" },
  { key: "not_before", schema: "integer" },
  { key: "not_after", schema: "integer" },
  { key: "superseded_by", schema: "keyword" },
  { key: "archived_at", schema: "keyword" },
  { key: "schema_version", schema: "integer" },
  { key: "revision", schema: "keyword" },
  { key: DERIVED_KEYS.claimUntil, schema: "integer" },
  MIGRATION_PIN_INDEX,
] as const;

/** Gate keys that are absent when unset, never "" (is_empty is false for ""). */
export const OPTIONAL_GATE_KEYS = ["superseded_by", "archived_at", "not_before", "not_after"] as const;

/** Collection metadata keys engram owns; Store.getMeta/setMeta keys live under META_PREFIX. */
export const COLLECTION_META = {
  dim: "engram_dim",
  layout: "engram_layout",
} as const;
export const META_PREFIX = "engram_meta:";

/**
 * The version of the term vectors a collection's points carry, kept in its
 * metadata under this Store meta key: absent on a collection written before
 * terms were stemmed and summaries indexed, whose points the store rewrites
 * in the background (term-vectors.ts).
 */
export const TERM_VECTORS_META = "term_vectors";
export const TERM_VECTORS_VERSION = "1";
/** Bumped when the payload layout changes incompatibly. */
export const LAYOUT_VERSION = 1;

/** How long a supersede's claim on its targets holds before another server may take it over. */
export const CLAIM_LEASE_MS = 10_000;

/**
 * Bounded reads: no one response may carry more than this (reference §7.1's
 * 2 MiB), so a page's size follows from the view's per-record ceiling.
 */
export const RPC_BYTE_BUDGET = 2 * 1024 * 1024;
/** Per-record ceilings by view: the full payload at the default write caps, the tags alone (the summary view of §7.1), and one or two short keys. */
export const VIEW_CEILING_BYTES = { full: 970_240, tags: 34_304, keys: 256 } as const;
/** The most points one request asks for, whatever the budget allows. */
export const MAX_PAGE = 1000;

/** Create-time retries: a 500 right after a collection is made can be transient. */
export const SETUP_RETRIES = 6;
export const SETUP_BACKOFF_MS = 50;
