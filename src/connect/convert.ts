import { create, protoInt64, type DescMessage } from "@bufbuild/protobuf";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { EveryArgOf, EveryField, MemoryView, RecallGateHidden, Coverage, StoreArgs } from "../core/index.js";
import { checkEnumNumber, fieldShapeError } from "./decode-diagnosis.js";
import {
  RecallGateHiddenSchema,
  type Citation as PbCitation,
  type Memory,
  type RecallGateHidden as PbRecallGateHidden,
  type StoreMemoryRequest,
} from "../gen/engram/v1/engram_pb.js";

/** uint64 knobs arrive as bigint; anything past 2^53 is far above every cap anyway. */
export function count(v: bigint): number {
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
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
  // To the nanosecond: a date would drop what is past the millisecond, and a sub-second not_after must still widen its window.
  return timestampDate({ ...t, nanos: 0 }).toISOString().replace(/\.000Z$/, `.${String(t.nanos).padStart(9, "0")}Z`);
}

/**
 * A Timestamp as timestampFromDate builds it, as a plain message object:
 * create() walks the descriptor, which costs a read more than the read.
 */
function pbTs(s: string): Timestamp {
  const ms = new Date(s).getTime();
  const seconds = Math.floor(ms / 1000);
  return { $typeName: "google.protobuf.Timestamp", seconds: protoInt64.parse(seconds), nanos: (ms - seconds * 1000) * 1000000 };
}

function pbCitation(c: PbCitationInit): PbCitation {
  return { $typeName: "engram.v1.Citation", kind: c.kind ?? "", ref: c.ref ?? "", locator: c.locator ?? "", pin: c.pin ?? "", excerpt: c.excerpt ?? "" };
}

type PbCitationInit = Partial<Pick<PbCitation, "kind" | "ref" | "locator" | "pin" | "excerpt">>;

/**
 * Every field spelled out, as create(MemorySchema, ...) would fill it (the
 * Memory type makes leaving one out a compile error); optional fields and
 * unset Timestamps stay absent, except schema_version, which is always set
 * (0 included) so that JSON always shows it. Built as a literal because create() costs as much as
 * the rest of a point read's lane work.
 */
export function toPbMemory(v: Partial<MemoryView>): Memory {
  const m: Memory = {
    $typeName: "engram.v1.Memory",
    id: v.id ?? "",
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
    summary: v.summary ?? "",
    summarySource: v.summary_source ?? "",
    score: v.score ?? 0,
    shortId: v.short_id ?? "",
    accessCount: BigInt(v.access_count ?? 0),
    kind: v.kind ?? "",
    citations: (v.citations ?? []).map(pbCitation),
    supersedes: v.supersedes ?? [],
    schemaVersion: v.schema_version ?? 0,
    truncated: v.truncated ?? false,
  };
  if (v.superseded_by !== undefined) m.supersededBy = v.superseded_by;
  // Unset rather than "": proto3 JSON then leaves the key out for a record
  // never summarized, as it does for every other empty string.
  if (v.summary_model) m.summaryModel = v.summary_model;
  if (v.created_at) m.createdAt = pbTs(v.created_at);
  if (v.last_accessed_at) m.lastAccessedAt = pbTs(v.last_accessed_at);
  if (v.not_before) m.notBefore = pbTs(v.not_before);
  if (v.not_after) m.notAfter = pbTs(v.not_after);
  if (v.archived_at) m.archivedAt = pbTs(v.archived_at);
  if (v.summary_egress_at) m.summaryEgressAt = pbTs(v.summary_egress_at);
  return m;
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

/** A core argument's name as protobuf-es spells the same proto field (base_dir is baseDir). */
type ProtoName<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<ProtoName<Tail>>}` : S;

/**
 * The proto fields that carry the record's write arguments, found by the core's
 * own names: a write argument StoreMemoryRequest lacks is `never` here, so no
 * request satisfies it and the lane fails to compile until the contract has it.
 */
export type RecordFields = {
  [F in keyof StoreArgs & string as ProtoName<F>]-?: ProtoName<F> extends keyof StoreMemoryRequest ? StoreMemoryRequest[ProtoName<F>] : never;
};

/** A record's write arguments, which the single, scheduled and superseding writes share. */
export function storeArgs(r: RecordFields): EveryField<StoreArgs> {
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

/** A request's enum field as sent: a number its enum lacks (binary keeps them) gets the field's enum envelope. */
export function enumArg(schema: DescMessage, field: string, value: number): number {
  checkEnumNumber(schema, field, value);
  return value;
}
