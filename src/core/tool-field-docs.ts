/**
 * Argument descriptions the MCP tools share: a record's write fields (the
 * single write, each record of a batch, a scheduled or superseding write), a
 * citation's, and the recall filters. Each row of the operation table names
 * the ones it offers; a batch record and a citation list are described by
 * these tables wherever they appear.
 */
import { RULES } from "../argerror/index.js";
import type { Citation } from "../model/record.js";
import type { FieldDoc } from "./operation-row.js";
import type { RecallFilterArgs, StoreArgs } from "./args.js";
import { DEFAULT_LIMITS } from "./limits.js";

export const MAX_RECALL = DEFAULT_LIMITS.maxRecall;
export const SCOPE_RULE = RULES["scope-required-unless-cross-spine"].sentence;
export const QUERY_RULE = `query is required, at most ${DEFAULT_LIMITS.maxQueryBytes} bytes by default (ENGRAM_MEMORY_MAX_QUERY_BYTES)`;
export const QUERY_DOC = `what to recall, in natural language; at most ${DEFAULT_LIMITS.maxQueryBytes} bytes by default`;

export const CITATION_DOCS = {
  kind: "file | commit | url | repo",
  ref: "the source anchor: a path, a commit SHA, a URL or a repository",
  locator: "where inside the source, e.g. a line range 200-240",
  pin: "what the source was pinned to: a SHA, a hash, @rev or a fetch time",
  excerpt: "the quoted passage",
} as const satisfies Record<keyof Citation, string>;

export const STORE_DOCS = {
  content: "the memory itself, in full",
  scope: "where it belongs, colon-delimited, e.g. project:engram or repo:github.com/acme/api",
  source: "user-said | agent-inferred",
  category: "decision | preference | convention | gotcha",
  tags: "labels for filtering (a search or list with tags matches records carrying all of them); no blanks, a repeat is kept once",
  repo: "repository the memory is about",
  workspace: "workspace the memory is about",
  worktree: "worktree path the memory is about",
  base_dir: "base directory the memory is about",
  summary: "optional summary shown in recall results, one line",
  citations: "sources backing the memory",
  idempotency_key: "optional retry key: the same key with the same content returns the original id",
} as const satisfies Record<keyof StoreArgs, FieldDoc>;

export const SCOPE_DOC = `scope to read; ${SCOPE_RULE}`;
export const CROSS_SPINE_DOC = "span every scope you may read; any scope given is ignored";
export const CREATED_AFTER_DOC = "RFC3339 instant; only records created at or after it";
export const CREATED_BEFORE_DOC = "RFC3339 instant; only records created before it";
export const CURSOR_DOC = "next_cursor from the previous page; omit for the first page";
export const ID_DOC = "the memory's id or short_id";

/**
 * The recall filters agents get. The recall-gate relaxations
 * (include_archived, include_superseded, include_scheduled) are operator
 * knobs of Connect and the CLI; agents always recall through the gate.
 */
export const RECALL_FILTER_DOCS = {
  scope: SCOPE_DOC,
  cross_spine: CROSS_SPINE_DOC,
  tags: "only records carrying all of these tags",
  categories: "only records in any of these categories",
  full: "return full records instead of the compact summary view (default false)",
  created_after: CREATED_AFTER_DOC,
  created_before: CREATED_BEFORE_DOC,
} as const satisfies { [F in keyof RecallFilterArgs]?: FieldDoc };
