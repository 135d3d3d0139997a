import type { MemoryRecord } from "../model/record.js";
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

export function recordLine(record: MemoryRecord, vector: Buffer | undefined): string {
  return canonicalJson(vector === undefined ? { record } : { record, vector: vector.toString("base64") });
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

const STRING_KEYS = ["short_id", "content", "scope", "created_at"] as const;
const LIST_KEYS = ["tags", "citations", "supersedes"] as const;

/**
 * One record line, checked for what the store needs to index it; the core's
 * validation already ran when the record was first written.
 */
export function parseRecordLine(text: string, line: number): ExportedRecord {
  if (text.trim() === "") throw new LineError(line, "blank line");
  const doc = parseJson(text, line);
  if (!isObject(doc) || !isObject(doc.record)) throw new LineError(line, "not an export record (needs a record object)");
  const r = doc.record;
  if (typeof r.id !== "string" || !isUuid(r.id)) throw new LineError(line, "record.id must be a UUID");
  for (const k of STRING_KEYS) if (r[k] !== undefined && typeof r[k] !== "string") throw new LineError(line, `record.${k} must be a string`);
  if (typeof r.scope !== "string" || r.scope === "") throw new LineError(line, "record.scope is required");
  if (typeof r.created_at !== "string" || r.created_at === "") throw new LineError(line, "record.created_at is required");
  if (typeof r.content !== "string") throw new LineError(line, "record.content is required");
  for (const k of LIST_KEYS) if (r[k] !== undefined && !Array.isArray(r[k])) throw new LineError(line, `record.${k} must be a list`);
  if (Array.isArray(r.tags) && r.tags.some((t) => typeof t !== "string")) throw new LineError(line, "record.tags must be strings");
  if (r.owner !== undefined && typeof r.owner !== "string") throw new LineError(line, "record.owner must be a string");
  if (r.visibility !== undefined && r.visibility !== "" && r.visibility !== "shared") throw new LineError(line, 'record.visibility must be "" or "shared"');
  const v = r.schema_version;
  if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > CURRENT_SCHEMA_VERSION)) {
    throw new LineError(line, `record.schema_version must be an integer from 0 to ${CURRENT_SCHEMA_VERSION}`);
  }
  for (const k of ["not_before", "not_after"] as const) {
    if (r[k] !== undefined && (typeof r[k] !== "number" || !Number.isFinite(r[k]))) throw new LineError(line, `record.${k} must be a number`);
  }
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
