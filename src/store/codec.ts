import type { MemoryRecord } from "../model/record.js";
import { CURRENT_SCHEMA_VERSION } from "./schema-version.js";
import { deriveCurrentKeys } from "./migrations/registry.js";
import type { Payload } from "./migrations/step.js";
import { newRevision } from "./revision.js";

/** Columns the embedded store indexes, derived from the payload on every write. */
export type IndexedColumns = {
  id: string;
  short_id: string | null;
  owner: string | null;
  scope: string;
  visibility: string;
  category: string;
  kind: string;
  created_at: string;
  not_before: number | null;
  not_after: number | null;
  superseded_by: string | null;
  archived_at: string | null;
  schema_version: number | null;
  payload: string;
};

/**
 * The one codec every write passes through. Ordinary writes stamp the
 * current schema version; only the migration runner names another one.
 * Every write stamps a fresh revision, except an import, which writes the
 * record exactly as exported (`"carried"`).
 */
export function encodeRecord(
  record: MemoryRecord,
  version: number | null = CURRENT_SCHEMA_VERSION,
  revision: "fresh" | "carried" = "fresh",
  /**
   * The caller hands over a record nothing else holds (a sweep's freshly
   * computed payload), so the codec may stamp it in place instead of
   * copying it first; a frozen one is copied all the same.
   */
  owned = false,
): IndexedColumns {
  // At the current version the codec derives what the newest step would
  // add, so ordinary writes never create work for the sweep. A migration
  // writing an older version passes the payload it computed, untouched.
  const stamped = (owned && !Object.isFrozen(record) ? record : { ...record }) as Record<string, unknown>;
  const derived: Record<string, unknown> = version === CURRENT_SCHEMA_VERSION ? deriveCurrentKeys(record as unknown as Payload, {}) : {};
  // The version stays the last key (a sweep strips it cheaply), so the
  // revision goes in before it and the version is always appended anew.
  if ("schema_version" in stamped) delete stamped.schema_version;
  if (revision === "fresh") derived.revision = newRevision();
  if (version !== null) derived.schema_version = version;
  // A key the payload already holds keeps its place; a new one goes at the
  // end of the JSON text, spliced in rather than added to the copy: adding
  // a key to a spread copy costs V8 more than stringifying the whole record.
  let tail = "";
  for (const k in derived) {
    if (Object.hasOwn(stamped, k)) stamped[k] = derived[k];
    else if (derived[k] !== undefined) tail += `,${JSON.stringify(k)}:${JSON.stringify(derived[k])}`;
  }
  let payload = JSON.stringify(stamped);
  if (tail !== "") payload = payload.length === 2 ? `{${tail.slice(1)}}` : `${payload.slice(0, -1)}${tail}}`;
  const r = stamped as unknown as MemoryRecord;
  return {
    id: r.id,
    short_id: r.short_id ? r.short_id.toUpperCase() : null,
    owner: r.owner === undefined ? null : r.owner,
    scope: r.scope,
    visibility: r.visibility,
    category: r.category,
    kind: r.kind ?? "",
    created_at: r.created_at,
    not_before: r.not_before ?? null,
    not_after: r.not_after ?? null,
    superseded_by: r.superseded_by || null,
    archived_at: r.archived_at || null,
    schema_version: version,
    payload,
  };
}

export function decodeRecord(payload: string): MemoryRecord {
  const rec = JSON.parse(payload) as MemoryRecord;
  rec.tags ??= [];
  rec.citations ??= [];
  rec.supersedes ??= [];
  return rec;
}
