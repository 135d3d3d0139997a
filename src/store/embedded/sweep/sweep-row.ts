import { encodeRecord, type IndexedColumns } from "../../codec.js";
import type { MemoryRecord } from "../../../model/record.js";
import { deepFreeze } from "../../../model/deep-freeze.js";
import type { VersionedRow } from "../../migrations/migration-store.js";
import { RANDOM_MINT, type Payload, type StepContext } from "../../migrations/step.js";
import { MIRRORED_COLUMNS } from "../sqlite-schema.js";
import { shortIdsFrom } from "../../../model/short-id.js";

/**
 * The payload keys some reader keeps a copy of: the mirrored columns are
 * derived from the keys of the same name, the mirror also reads tags and
 * citations, and the FTS row content and tags.
 */
const MIRRORED_KEYS: readonly string[] = [...MIRRORED_COLUMNS, "content", "tags", "citations"];

/** The values of the mirrored keys, frozen where they are objects, so a later identity comparison is sound. */
export function mirroredValues(p: Payload): unknown[] {
  return MIRRORED_KEYS.map((k) => {
    const v = p[k];
    return v !== null && typeof v === "object" ? deepFreeze(v) : v;
  });
}

/** Whether writing `next` over a row that held `before` may be quiet: every mirrored key kept, and the version moved. */
export function canBeQuiet(before: readonly unknown[], next: Payload, storedVersion: number | null, version: number): boolean {
  if (storedVersion === version) return false;
  for (let i = 0; i < MIRRORED_KEYS.length; i++) if (next[MIRRORED_KEYS[i]!] !== before[i]) return false;
  return true;
}

/** A record row as a sweep reads it: rid, id, short_id and schema_version columns, payload text. */
export type SweepRow = [rid: number, id: string, shortId: string | null, version: number | null, text: string];

/**
 * Rewrites computed ahead of the passes that write them, by column, in the
 * order they were computed; what a sweep worker sends back for one chunk of
 * rows and what MigrationStage.addChunk keeps. Quiet rewrites keep only the
 * columns a quiet write sets: their payloads are joined in `text`, each
 * ending at its `ends` offset; a full rewrite has `ends` -1 and its columns
 * next in `full`.
 */
export type StagedChunk = {
  rids: number[];
  /** The record ids, which a pass that trusts the stage does not read again. */
  ids: string[];
  storedShort: (string | null)[];
  /** NaN for a NULL column. */
  storedVersion: number[];
  /** The stored payload's UTF-8 bytes, for the passes' byte budget. */
  bytes: number[];
  newShort: (string | null)[];
  ends: number[];
  text: string;
  full: IndexedColumns[];
};

export function emptyChunk(): StagedChunk {
  return { rids: [], ids: [], storedShort: [], storedVersion: [], bytes: [], newShort: [], ends: [], text: "", full: [] };
}

/**
 * What stageRow keeps: every rewrite, only quiet ones (a pass computes the
 * rest itself), or none (past the stage's budget a preflight still checks
 * every record but keeps nothing more).
 */
export type Keep = "all" | "quiet" | "none";

/**
 * Computes one row's rewrite at `version` and appends it to `chunk`; the
 * parts of `text` go to `parts`, for the caller to join once. Returns false,
 * keeping nothing, when `visit` declines the row. Throws whatever `visit`
 * throws.
 */
export function stageRow(
  row: SweepRow,
  version: number,
  visit: (row: VersionedRow, ctx: StepContext) => Payload | void | undefined,
  ctx: StepContext,
  chunk: StagedChunk,
  parts: string[],
  at: { chars: number },
  keep: Keep,
): boolean {
  const [rid, id, shortId, stored, text] = row;
  const payload = JSON.parse(text) as Payload;
  const before = keep === "none" ? undefined : mirroredValues(payload);
  const next = visit({ id, version: stored ?? 0, payload }, ctx);
  if (!next) return false;
  if (!before) return true;
  const quiet = canBeQuiet(before, next, stored, version);
  if (!quiet && keep === "quiet") return true;
  // `next` is the step chain's own output, compared with `before` already: stamping it in place saves a copy per record.
  const c = encodeRecord(next as unknown as MemoryRecord, version, "fresh", true);
  chunk.rids.push(rid);
  chunk.ids.push(id);
  chunk.storedShort.push(shortId);
  chunk.storedVersion.push(stored ?? Number.NaN);
  chunk.bytes.push(Buffer.byteLength(text, "utf8"));
  if (quiet) {
    chunk.newShort.push(c.short_id);
    parts.push(c.payload);
    at.chars += c.payload.length;
    chunk.ends.push(at.chars);
  } else {
    chunk.newShort.push(null);
    chunk.ends.push(-1);
    chunk.full.push(c);
  }
  return true;
}

/** A row whose rewrite threw: the rid, so the first failure in record order can be reported. */
export class RowFailure {
  constructor(
    readonly rid: number,
    readonly error: unknown,
  ) {}
}

/** Iterates record rows; a prepared statement in raw mode over (lo, hi, version). */
export type RowSource = (lo: number, hi: number, version: number) => Iterable<SweepRow>;

/** The rows of a chunk, by direction: a forward sweep's below its target, a revert's above its version. */
export const CHUNK_ROWS_SQL = {
  forward: `SELECT rid, id, short_id, schema_version, payload FROM records
    WHERE rid >= ? AND rid <= ? AND (schema_version IS NULL OR schema_version < ?) ORDER BY rid`,
  backward: `SELECT rid, id, short_id, schema_version, payload FROM records
    WHERE rid >= ? AND rid <= ? AND schema_version > ? ORDER BY rid`,
} as const;

export type SweepDirection = keyof typeof CHUNK_ROWS_SQL;

/**
 * Chunk `k` of a sweep over `rids` (`rows` per chunk, in the order the
 * passes write them): every row of the chunk still on the sweep's side of
 * `version` (see CHUNK_ROWS_SQL), computed with `visit`. A forward sweep's
 * chunk k mints from `mint[k * rows …]`, so ids come out ascending in rid
 * order whichever thread computes which chunk. Undefined when k is past the
 * end. A rewrite that throws: `"throw"` raises a RowFailure for the first
 * such row (a preflight refuses on it); `"skip"` keeps nothing for it, for
 * the pass that reaches it to meet the error itself.
 */
export function scanChunk(
  read: RowSource,
  rids: Float64Array,
  k: number,
  rows: number,
  version: number,
  visit: (row: VersionedRow, ctx: StepContext) => Payload | void | undefined,
  mint: Float64Array | undefined,
  keep: Keep,
  failures: "throw" | "skip",
): StagedChunk | undefined {
  const first = k * rows;
  if (first >= rids.length) return undefined;
  const end = Math.min(rids.length, first + rows);
  const ctx: StepContext = mint ? { shortId: shortIdsFrom(mint, first, end) } : RANDOM_MINT;
  // A revert's chunk can span two versions, so its rids are sorted here for the range read.
  const wanted = rids.slice(first, end).sort();
  const chunk = emptyChunk();
  const parts: string[] = [];
  const at = { chars: 0 };
  let j = 0;
  for (const row of read(wanted[0]!, wanted[wanted.length - 1]!, version)) {
    const rid = row[0];
    // Rows in the range that the sweep did not list (written since) are not this sweep's.
    while (j < wanted.length && wanted[j]! < rid) j++;
    if (j === wanted.length || wanted[j] !== rid) continue;
    try {
      stageRow(row, version, visit, ctx, chunk, parts, at, keep);
    } catch (err) {
      if (failures === "throw") throw new RowFailure(rid, err);
    }
  }
  chunk.text = parts.join("");
  return chunk;
}
