import { CITATION_FIELDS } from "../core/arg-kinds.js";
import { readRfc3339 } from "../core/rfc3339.js";
import { MEMORY_SOURCES, RECORD_CATEGORIES } from "../core/validate.js";
import { VISIBILITIES, type MemoryRecord } from "../model/record.js";
import { CURRENT_SCHEMA_VERSION, isUuid } from "../store/index.js";

/**
 * The JSON Lines format of `engram export` / `engram import`.
 *
 * Line 1 is a header naming the format, its version, the embedder whose
 * vectors follow ("" when unknown, e.g. mid-reindex) and whether vectors
 * are included. Every further line is one record: `{"record": {…},
 * "vector": "<base64>"}`, the record being the whole stored payload (server
 * keys and lifecycle stamps included) and the vector its float32 bytes as
 * stored, little-endian. Keys are written in sorted order at every depth,
 * so exporting the same store twice gives the same bytes.
 */

export const EXPORT_FORMAT = "engram-export";
export const EXPORT_FORMAT_VERSION = 1;

export type ExportHeader = { format: typeof EXPORT_FORMAT; version: typeof EXPORT_FORMAT_VERSION; embedder: string; vectors: boolean };

export type ExportedRecord = { record: MemoryRecord; vector?: Buffer };

/** A line of an export that cannot be imported; names the line and what is wrong, never its content. */
export class LineError extends Error {
  override readonly name = "LineError";
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** JSON with sorted keys: one value, one spelling. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

export function headerLine(h: Omit<ExportHeader, "format" | "version">): string {
  return canonicalJson({ format: EXPORT_FORMAT, version: EXPORT_FORMAT_VERSION, embedder: h.embedder, vectors: h.vectors });
}

export function recordLine(record: MemoryRecord, vector: Uint8Array | undefined): string {
  // Every SQLite driver hands a BLOB back as bytes, not all of them as a Buffer.
  return canonicalJson(vector === undefined ? { record } : { record, vector: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64") });
}

function parseJson(text: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new LineError(line, "not valid JSON");
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

export function parseHeader(text: string): ExportHeader {
  const h = parseJson(text, 1);
  if (!isObject(h) || h.format !== EXPORT_FORMAT) throw new LineError(1, `not an ${EXPORT_FORMAT} header`);
  if (h.version !== EXPORT_FORMAT_VERSION) throw new LineError(1, `format version must be ${EXPORT_FORMAT_VERSION}`);
  if (typeof h.embedder !== "string" || typeof h.vectors !== "boolean") throw new LineError(1, "header needs embedder (string) and vectors (boolean)");
  return { format: EXPORT_FORMAT, version: EXPORT_FORMAT_VERSION, embedder: h.embedder, vectors: h.vectors };
}

/**
 * The keys every stored record carries, each from the core's closed set: the
 * store indexes them (a row without one is refused), and the core never
 * writes any other value.
 */
const CLOSED_KEYS: readonly (readonly [string, readonly string[]])[] = [
  ["source", MEMORY_SOURCES],
  ["category", RECORD_CATEGORIES],
  ["visibility", VISIBILITIES],
];
/** Keys that are strings whenever they are present. */
const OPTIONAL_STRINGS = [
  "short_id",
  "owner",
  "repo",
  "workspace",
  "worktree_path",
  "base_dir",
  "actor",
  "summary",
  "summary_source",
  "summary_model",
  "summary_egress_at",
  "last_accessed_at",
  "kind",
  "superseded_by",
  "archived_at",
  "idempotency_fingerprint",
  "embedder_identity",
  "revision",
] as const satisfies readonly (keyof MemoryRecord)[];

/** The accepted values as a reason may list them: "" is spelled out, as nothing else would show it. */
function oneOf(values: readonly string[]): string {
  return values.map((v) => (v === "" ? '""' : v)).join("|");
}

function isCount(v: unknown): boolean {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/** The record's instants: created_at always, the others when set. */
const TIMES = ["created_at", "archived_at", "last_accessed_at", "summary_egress_at"] as const satisfies readonly (keyof MemoryRecord)[];

/**
 * Every field of a record line the store or the core relies on: present
 * when every stored record has it, of its type, and from its closed set. A
 * reason names the field and what it must be, never the value found.
 */

function checkRecord(r: Record<string, unknown>, line: number): void {
  const fail = (reason: string): never => {
    throw new LineError(line, reason);
  };
  if (typeof r.id !== "string" || !isUuid(r.id)) fail("record.id must be a UUID");
  for (const k of ["content", "scope", "created_at"] as const) {
    if (r[k] === undefined) fail(`record.${k} is required`);
    if (typeof r[k] !== "string") fail(`record.${k} must be a string`);
  }
  if ((r.scope as string).trim() === "") fail("record.scope is required");
  if ((r.created_at as string).trim() === "") fail("record.created_at is required");
  // Times are compared as they are stored: one that is not RFC3339 (" ", say) would sort before every record and age past any window.
  for (const k of TIMES) if (typeof r[k] === "string" && r[k] !== "" && readRfc3339(r[k]) === undefined) fail(`record.${k} must be RFC3339`);
  for (const [k, values] of CLOSED_KEYS) {
    if (r[k] === undefined) fail(`record.${k} is required`);
    if (typeof r[k] !== "string" || !values.includes(r[k])) fail(`record.${k} must be one of ${oneOf(values)}`);
  }
  for (const k of OPTIONAL_STRINGS) if (r[k] !== undefined && typeof r[k] !== "string") fail(`record.${k} must be a string`);
  for (const k of ["tags", "citations", "supersedes"] as const) if (r[k] !== undefined && !Array.isArray(r[k])) fail(`record.${k} must be a list`);
  for (const k of ["tags", "supersedes"] as const) {
    if (Array.isArray(r[k]) && r[k].some((t: unknown) => typeof t !== "string")) fail(`record.${k} must be strings`);
  }
  if (Array.isArray(r.citations)) {
    for (const c of r.citations as unknown[]) {
      if (!isObject(c) || CITATION_FIELDS.some((k) => c[k] !== undefined && typeof c[k] !== "string")) fail("record.citations must be citation objects of strings");
    }
  }
  for (const k of ["access_count", "content_bytes"] as const) if (r[k] !== undefined && !isCount(r[k])) fail(`record.${k} must be a non-negative integer`);
  const v = r.schema_version;
  if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > CURRENT_SCHEMA_VERSION)) {
    fail(`record.schema_version must be an integer from 0 to ${CURRENT_SCHEMA_VERSION}`);
  }
  for (const k of ["not_before", "not_after"] as const) {
    if (r[k] !== undefined && (typeof r[k] !== "number" || !Number.isFinite(r[k]))) fail(`record.${k} must be a number`);
  }
}

/**
 * One record line, checked field by field for what the store needs to index
 * it and what the core's closed sets allow: a file is anyone's text, and a
 * line the store would refuse must be named as that line, not as its batch.
 */
export function parseRecordLine(text: string, line: number): ExportedRecord {
  if (text.trim() === "") throw new LineError(line, "blank line");
  const doc = parseJson(text, line);
  if (!isObject(doc) || !isObject(doc.record)) throw new LineError(line, "not an export record (needs a record object)");
  const r = doc.record;
  checkRecord(r, line);
  let vector: Buffer | undefined;
  if (doc.vector !== undefined) {
    if (typeof doc.vector !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(doc.vector)) throw new LineError(line, "vector must be base64");
    vector = Buffer.from(doc.vector, "base64");
    if (vector.byteLength % 4 !== 0) throw new LineError(line, "vector must hold whole float32 values");
  }
  const record = r as unknown as MemoryRecord;
  record.tags ??= [];
  record.citations ??= [];
  record.supersedes ??= [];
  return vector === undefined ? { record } : { record, vector };
}
