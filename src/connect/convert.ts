import { create, type DescMessage } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { MemoryView, RecallGateHidden, Coverage, StoreArgs } from "../core/index.js";
import { fieldShapeError } from "./decode-diagnosis.js";
import {
  CitationSchema,
  MemorySchema,
  RecallGateHiddenSchema,
  type Citation as PbCitation,
  type Memory,
  type RecallGateHidden as PbRecallGateHidden,
} from "../gen/engram/v1/engram_pb.js";

/** uint64 knobs arrive as bigint; anything past 2^53 is far above every cap anyway. */
export function count(v: bigint): number {
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

function ts(s: string | undefined) {
  return s ? timestampFromDate(new Date(s)) : undefined;
}

/** The range google.protobuf.Timestamp allows: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z. */
const TS_MIN_SECONDS = -62135596800n;
const TS_MAX_SECONDS = 253402300799n;

/**
 * A request Timestamp as the RFC3339 text the core validates. Unset stays
 * unset. One outside the type's range did not decode as a Timestamp, so it
 * gets that field's decode envelope (the same words the core uses for a
 * malformed timestamp).
 */
export function rfc3339Of(schema: DescMessage, field: string, t: Timestamp | undefined): string | undefined {
  if (t === undefined) return undefined;
  if (t.seconds < TS_MIN_SECONDS || t.seconds > TS_MAX_SECONDS || t.nanos < 0 || t.nanos > 999_999_999) {
    const f = schema.fields.find((x) => x.name === field);
    if (f) throw fieldShapeError(f);
  }
  return timestampDate(t).toISOString();
}

export function toPbMemory(v: Partial<MemoryView>): Memory {
  return create(MemorySchema, {
    id: v.id ?? "",
    shortId: v.short_id ?? "",
    content: v.content ?? "",
    scope: v.scope ?? "",
    repo: v.repo ?? "",
    workspace: v.workspace ?? "",
    worktree: v.worktree ?? "",
    baseDir: v.base_dir ?? "",
    source: v.source ?? "",
    category: v.category ?? "",
    tags: v.tags ?? [],
    actor: v.actor ?? "",
    owner: v.owner ?? "",
    visibility: v.visibility ?? "",
    createdAt: ts(v.created_at),
    summary: v.summary ?? "",
    summarySource: v.summary_source ?? "",
    score: v.score ?? 0,
    accessCount: BigInt(v.access_count ?? 0),
    lastAccessedAt: ts(v.last_accessed_at),
    kind: v.kind ?? "",
    citations: (v.citations ?? []).map((c) => create(CitationSchema, c)),
    supersededBy: v.superseded_by,
    supersedes: v.supersedes ?? [],
    notBefore: ts(v.not_before),
    notAfter: ts(v.not_after),
    archivedAt: ts(v.archived_at),
    schemaVersion: v.schema_version ?? 0,
    summaryModel: v.summary_model ?? "",
    summaryEgressAt: ts(v.summary_egress_at),
    truncated: v.truncated ?? false,
  });
}

export function toPbHidden(h: RecallGateHidden): PbRecallGateHidden {
  return create(RecallGateHiddenSchema, {
    total: BigInt(h.total),
    archived: BigInt(h.archived),
    superseded: BigInt(h.superseded),
    expired: BigInt(h.expired),
    scheduled: BigInt(h.scheduled),
  });
}

export function coverageFields(c: Coverage | undefined): { searchedScopes: string[]; scopesTruncated: boolean; scopesUnknown: boolean } {
  if (!c) return { searchedScopes: [], scopesTruncated: false, scopesUnknown: false };
  if ("scopes_unknown" in c) return { searchedScopes: [], scopesTruncated: false, scopesUnknown: true };
  return { searchedScopes: c.searched_scopes, scopesTruncated: c.scopes_truncated, scopesUnknown: false };
}

export function citationsArg(list: readonly PbCitation[]): StoreArgs["citations"] {
  return list.map((c) => ({ kind: c.kind, ref: c.ref, locator: c.locator, pin: c.pin, excerpt: c.excerpt }));
}

/** Proto3 strings have no presence: "" is "not sent", which the core reads as absent. */
export function opt(s: string): string | undefined {
  return s === "" ? undefined : s;
}

export function storeArgs(r: {
  content: string;
  scope: string;
  source: string;
  category: string;
  tags: string[];
  repo: string;
  workspace: string;
  worktree: string;
  baseDir: string;
  summary: string;
  citations: PbCitation[];
  idempotencyKey: string;
}): StoreArgs {
  return {
    content: opt(r.content),
    scope: opt(r.scope),
    source: opt(r.source),
    category: opt(r.category),
    tags: r.tags,
    repo: opt(r.repo),
    workspace: opt(r.workspace),
    worktree: opt(r.worktree),
    base_dir: opt(r.baseDir),
    summary: opt(r.summary),
    citations: citationsArg(r.citations),
    idempotency_key: opt(r.idempotencyKey),
  };
}
