import type { Citation, MemoryRecord } from "../model/record.js";
import { deepFreeze } from "../model/deep-freeze.js";

/**
 * What a lane may show of a record. Lanes map this to proto or JSON; the
 * choice of full versus compact, and the compact summary, are made here.
 */
export type MemoryView = {
  id: string;
  short_id: string;
  content?: string;
  scope: string;
  repo?: string;
  workspace?: string;
  worktree?: string;
  base_dir?: string;
  source?: string;
  category: string;
  tags: string[];
  actor?: string;
  owner?: string;
  visibility?: string;
  created_at: string;
  summary: string;
  summary_source?: string;
  summary_model?: string;
  summary_egress_at?: string;
  score?: number;
  access_count?: number;
  last_accessed_at?: string;
  kind?: string;
  citations?: Citation[];
  superseded_by?: string;
  supersedes?: string[];
  not_before?: string;
  not_after?: string;
  archived_at?: string;
  schema_version?: number;
  truncated?: boolean;
};

function unixToRfc3339(s: number | undefined): string | undefined {
  return s === undefined ? undefined : new Date(s * 1000).toISOString().replace(".000Z", "Z");
}

export function fullView(r: MemoryRecord, score?: number): MemoryView {
  const v: MemoryView = {
    id: r.id,
    short_id: r.short_id,
    content: r.content,
    scope: r.scope,
    repo: r.repo,
    workspace: r.workspace,
    worktree: r.worktree_path,
    base_dir: r.base_dir,
    source: r.source,
    category: r.category,
    tags: [...r.tags],
    actor: r.actor,
    owner: r.owner ?? "",
    visibility: r.visibility,
    created_at: r.created_at,
    summary: r.summary,
    summary_source: r.summary_source,
    summary_model: r.summary_model ?? "",
    access_count: r.access_count ?? 0,
    kind: r.kind,
    citations: r.citations.map((c) => ({ ...c })),
    supersedes: [...r.supersedes],
    schema_version: r.schema_version ?? 0,
  };
  if (score !== undefined) v.score = score;
  if (r.summary_egress_at) v.summary_egress_at = r.summary_egress_at;
  if (r.last_accessed_at) v.last_accessed_at = r.last_accessed_at;
  if (r.superseded_by) v.superseded_by = r.superseded_by;
  if (r.not_before !== undefined) v.not_before = unixToRfc3339(r.not_before);
  if (r.not_after !== undefined) v.not_after = unixToRfc3339(r.not_after);
  if (r.archived_at) v.archived_at = r.archived_at;
  return v;
}

/** One view per frozen record; it goes when the record does (the store's cache drops it). */
const pointViews = new WeakMap<MemoryRecord, MemoryView>();

/**
 * The full view of a point read. A record the store handed out frozen (the
 * embedded store hands every reader of one stored text the same record) gets
 * one view, built on its first read and frozen in turn, so a lane may keep
 * what it derives from the view (the Connect lane's encoded message) keyed
 * by it: a new version of the record is a new record, so a new view. Any
 * other record gets a view of its own, as fullView builds it.
 */
export function pointView(r: MemoryRecord): MemoryView {
  if (!Object.isFrozen(r)) return fullView(r);
  let v = pointViews.get(r);
  if (v === undefined) {
    v = deepFreeze(fullView(r));
    pointViews.set(r, v);
  }
  return v;
}

/**
 * A head of the content cut at a character (code point) boundary, trailing
 * spaces trimmed, with an ellipsis, when no summary was stored.
 */
export function recallSummary(r: MemoryRecord, maxChars: number): { summary: string; truncated: boolean } {
  if (r.summary) return { summary: r.summary, truncated: false };
  const chars = [...r.content];
  if (chars.length <= maxChars) return { summary: r.content, truncated: false };
  return { summary: chars.slice(0, maxChars).join("").trimEnd() + "…", truncated: true };
}

/**
 * A summary-shaped row: the full record with content, citations and kind
 * cleared, and the summary filled from the content when none was stored.
 * Everything else (provenance, owner, visibility, lifecycle stamps, the
 * schema version) stays, so a compact row never misreports a record.
 */
export function compactView(r: MemoryRecord, maxChars: number, score?: number): MemoryView {
  const { summary, truncated } = recallSummary(r, maxChars);
  const { content: _content, citations: _citations, kind: _kind, ...rest } = fullView(r, score);
  const v: MemoryView = { ...rest, summary };
  if (truncated) v.truncated = true;
  return v;
}

/** The fields of a compact row an agent sees on the MCP lane (the reference's recall view). */
const RECALL_ROW_FIELDS = [
  "id",
  "short_id",
  "scope",
  "category",
  "tags",
  "created_at",
  "summary",
  "summary_source",
  "truncated",
  "score",
  "superseded_by",
  "not_before",
  "not_after",
  "archived_at",
] as const satisfies readonly (keyof MemoryView)[];

/**
 * A compact row cut down to the recall view. Empty optional fields are left
 * out, and the lifecycle stamps stay so a row relaxed past the recall gate
 * still says why it would have been hidden.
 */
export function recallRow(v: MemoryView): Partial<MemoryView> {
  const out: Partial<MemoryView> = {};
  for (const k of RECALL_ROW_FIELDS) {
    const value = v[k];
    if (value === undefined || (k === "summary_source" && value === "")) continue;
    (out as Record<string, unknown>)[k] = value;
  }
  return out;
}
