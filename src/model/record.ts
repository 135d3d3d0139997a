/** A citation as stored and as sent; every key is always present on a stored record. */
export type Citation = {
  kind: string;
  ref: string;
  locator: string;
  pin: string;
  excerpt: string;
};

/** A record's visibility: "" (its owner's alone) or shared with every caller; the store keeps nothing else. */
export const VISIBILITIES = ["", "shared"] as const;

/**
 * A stored record. Keys are the payload keys of the store (snake_case, the
 * same names the proto and the MCP tools use, except the payload's historic
 * `worktree_path`), so migrations can reason about "added keys".
 */
export type MemoryRecord = {
  id: string;
  short_id: string;
  content: string;
  scope: string;
  repo: string;
  workspace: string;
  worktree_path: string;
  base_dir: string;
  source: string;
  category: string;
  tags: string[];
  actor: string;
  /** Absent only on pre-isolation records, which no owner-scoped read sees. */
  owner?: string;
  visibility: (typeof VISIBILITIES)[number];
  /** RFC3339 UTC with milliseconds; fixed width, so strings sort by time. */
  created_at: string;
  summary: string;
  summary_source: "" | "client" | "auto";
  summary_model: string;
  summary_egress_at?: string;
  access_count: number;
  last_accessed_at?: string;
  kind: string;
  citations: Citation[];
  superseded_by?: string;
  supersedes: string[];
  /** Unix seconds. */
  not_before?: number;
  /** Unix seconds. */
  not_after?: number;
  archived_at?: string;
  /** Absent reads as 0. */
  schema_version?: number;
  /** Server-only, never on a wire. */
  idempotency_fingerprint?: string;
  /** Server-only, never on a wire. */
  embedder_identity?: string;
  /**
   * Server-only, never on a wire: the store's write token, new on every
   * write. A conditional replace lands only while it is still the one read.
   * Absent on records written before revisions existed.
   */
  revision?: string;
  /** Derived by the v1 → v2 step: UTF-8 byte length of content. */
  content_bytes?: number;
};

/** Keys a caller can never read back. */
export const SERVER_ONLY_KEYS = ["idempotency_fingerprint", "embedder_identity", "revision"] as const;

export type ScoredRecord = { record: MemoryRecord; score: number };
