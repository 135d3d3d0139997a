import type { MemoryRecord } from "../../model/record.js";
import { encodeRecord, decodeRecord } from "../codec.js";
import { citationKey, type RecordAttrs } from "../record-filter.js";
import { DERIVED_KEYS, OPTIONAL_GATE_KEYS } from "./layout.js";

export type Payload = Record<string, unknown>;

/** The scope's namespace ("discovery:", "rule:"), "" for a plain scope. */
export function scopePrefixOf(scope: string): string {
  const at = scope.indexOf(":");
  return at < 0 ? "" : scope.slice(0, at + 1);
}

/**
 * A record as a point payload. It passes through the one codec (schema
 * version, derived keys, a fresh revision unless carried), then drops unset
 * gate keys, which Qdrant's is_empty cannot tell from a value when they are
 * "", and adds the keys only filters use.
 */
export function encodePayload(record: MemoryRecord, version?: number | null, revision: "fresh" | "carried" = "fresh"): Payload {
  const encoded = version === undefined ? encodeRecord(record, undefined, revision) : encodeRecord(record, version, revision);
  const payload = JSON.parse(encoded.payload) as Payload;
  for (const key of OPTIONAL_GATE_KEYS) if (payload[key] === "" || payload[key] === null) delete payload[key];
  if (payload.owner === null) delete payload.owner;
  for (const key of Object.values(DERIVED_KEYS)) delete payload[key];
  payload[DERIVED_KEYS.citationKeys] = (record.citations ?? []).map((c) => citationKey(c.kind, c.ref));
  payload[DERIVED_KEYS.scopePrefix] = scopePrefixOf(record.scope);
  return payload;
}

/** A point payload as a record: the derived and claim keys are the store's, never the record's. */
export function decodePayload(payload: Payload): MemoryRecord {
  const copy: Payload = { ...payload };
  for (const key of Object.values(DERIVED_KEYS)) delete copy[key];
  return decodeRecord(JSON.stringify(copy));
}

/** The filter facts of a record, for the one shared predicate (record-filter.ts). */
export function attrsOf(r: MemoryRecord): RecordAttrs {
  return {
    rid: 0,
    id: r.id,
    owner: r.owner === undefined ? null : r.owner,
    scope: r.scope,
    visibility: r.visibility,
    category: r.category,
    kind: r.kind ?? "",
    createdAt: r.created_at,
    notBefore: r.not_before ?? null,
    notAfter: r.not_after ?? null,
    superseded: !!r.superseded_by,
    archived: !!r.archived_at,
    tags: r.tags ?? [],
    citationKeys: (r.citations ?? []).map((c) => citationKey(c.kind, c.ref)),
  };
}
