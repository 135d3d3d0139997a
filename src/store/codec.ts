import type { MemoryRecord } from "../model/record.js";
import { CURRENT_SCHEMA_VERSION } from "./schema-version.js";
import { deriveCurrentKeys } from "./migrations/registry.js";
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
): IndexedColumns {
  // At the current version the codec derives what the newest step would
  // add, so ordinary writes never create work for the sweep. A migration
  // writing an older version passes the payload it computed, untouched.
  const stamped = (version === CURRENT_SCHEMA_VERSION ? deriveCurrentKeys({ ...record }) : { ...record }) as MemoryRecord;
  // The version stays the last key (a sweep strips it cheaply), so the revision goes in before it.
  if ("schema_version" in stamped) delete stamped.schema_version;
  if (revision === "fresh") stamped.revision = newRevision();
  if (version !== null) stamped.schema_version = version;
  return {
    id: stamped.id,
    short_id: stamped.short_id ? stamped.short_id.toUpperCase() : null,
    owner: stamped.owner === undefined ? null : stamped.owner,
    scope: stamped.scope,
    visibility: stamped.visibility,
    category: stamped.category,
    kind: stamped.kind ?? "",
    created_at: stamped.created_at,
    not_before: stamped.not_before ?? null,
    not_after: stamped.not_after ?? null,
    superseded_by: stamped.superseded_by || null,
    archived_at: stamped.archived_at || null,
    schema_version: version,
    payload: JSON.stringify(stamped),
  };
}

export function decodeRecord(payload: string): MemoryRecord {
  const rec = JSON.parse(payload) as MemoryRecord;
  rec.tags ??= [];
  rec.citations ??= [];
  rec.supersedes ??= [];
  return rec;
}
