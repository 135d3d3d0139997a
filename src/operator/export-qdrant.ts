import { META_EMBEDDER_IDENTITY } from "../store/index.js";
import {
  aliasTarget,
  checkServerVersion,
  connectQdrant,
  decodePayload,
  DEFAULT_QDRANT_COLLECTION,
  DENSE_VECTOR,
  mapQdrantError,
  MAX_PAGE,
  META_PREFIX,
  QdrantSetupError,
  RPC_BYTE_BUDGET,
  VIEW_CEILING_BYTES,
  type QdrantConnection,
} from "../store/qdrant/index.js";
import type { ExportOptions, ExportReport } from "./export-records.js";
import { headerLine, recordLine } from "./export-format.js";
import { REINDEX_IN_PROGRESS } from "./reindex.js";

type Json = Record<string, unknown>;
type Point = { id: string | number; payload?: Json | null; vector?: unknown };

const KEYS_PAGE = Math.min(MAX_PAGE, Math.max(1, Math.floor(RPC_BYTE_BUDGET / VIEW_CEILING_BYTES.keys)));

/**
 * `engram export` on a Qdrant deployment: the same lines, in the same order
 * (oldest first, ties by id), as the embedded store's export of the same
 * records, so an export moves between the two stores either way.
 *
 * Qdrant has no read transaction. The export reads one physical collection
 * (the one the alias pointed at when it began), so a reindex switching the
 * alias meanwhile cannot mix two embedders' vectors under one header; but a
 * record servers write during the export is exported as it was when its
 * page was read, and one created after the key scan is left out.
 */
export async function exportQdrant(conn: QdrantConnection, opts: ExportOptions): Promise<ExportReport> {
  const client = connectQdrant(conn);
  const q = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw mapQdrantError(err, "read");
    }
  };
  checkServerVersion((await q(() => client.versionInfo())).version);
  const alias = conn.collection || DEFAULT_QDRANT_COLLECTION;
  const physical = await q(() => aliasTarget(client, alias));
  if (physical === undefined) throw new QdrantSetupError("there is no engram collection behind the alias to export");

  const info = await q(() => client.getCollection(physical));
  const stored = (info.config as { metadata?: Json | null }).metadata?.[META_PREFIX + META_EMBEDDER_IDENTITY];
  const identity = typeof stored === "string" ? stored : "";
  // As on the embedded store: a half-done reindex's vectors come from two embedders, so the importer re-embeds them all.
  const embedder = identity.startsWith(REINDEX_IN_PROGRESS) ? "" : identity;

  const must: Json[] = [];
  if (!opts.allOwners) must.push({ key: "owner", match: { value: opts.owner ?? "" } });
  if (opts.scope !== undefined) must.push({ key: "scope", match: { value: opts.scope } });
  const filter = must.length > 0 ? { must } : undefined;

  // Qdrant scrolls in id order only: the keys of every match are read first and sorted, as the Qdrant store's list does.
  const keys: { id: string; c: string }[] = [];
  for (let offset: string | number | undefined; ; ) {
    const page = await q(() =>
      client.scroll(physical, { filter, limit: KEYS_PAGE, with_payload: ["created_at"], with_vector: false, ...(offset === undefined ? {} : { offset }) }),
    );
    for (const p of page.points as Point[]) keys.push({ id: String(p.id), c: String(p.payload?.created_at ?? "") });
    const next = page.next_page_offset;
    if (next === undefined || next === null || typeof next === "object") break;
    offset = next as string | number;
  }
  keys.sort((x, y) => (x.c < y.c ? -1 : x.c > y.c ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0));

  await opts.write(headerLine({ embedder, vectors: opts.vectors }) + "\n");
  opts.onProgress?.(0, keys.length);
  let done = 0;
  let seen = 0;
  let seenBytes = 0;
  for (let i = 0; i < keys.length; ) {
    // Each request asks for as many records as the sizes seen so far say fit half the response budget, starting with one.
    const fit = seen === 0 ? 1 : Math.max(1, Math.floor(RPC_BYTE_BUDGET / (2 * (seenBytes / seen))));
    const ids = keys.slice(i, i + Math.min(MAX_PAGE, fit)).map((k) => k.id);
    i += ids.length;
    const points = (await q(() =>
      client.retrieve(physical, { ids, with_payload: true, with_vector: opts.vectors ? [DENSE_VECTOR] : false }),
    )) as Point[];
    const byId = new Map(points.map((p) => [String(p.id), p]));
    const lines: string[] = [];
    for (const id of ids) {
      const p = byId.get(id);
      // Deleted by a server since the key scan: it is no longer a record of the store.
      if (!p) continue;
      seen++;
      seenBytes += Buffer.byteLength(JSON.stringify(p), "utf8");
      lines.push(recordLine(decodePayload(p.payload ?? {}), opts.vectors ? denseBytes(p) : undefined) + "\n");
    }
    if (lines.length > 0) await opts.write(lines.join(""));
    done += lines.length;
    opts.onProgress?.(done, keys.length);
  }
  return { records: done, embedder, vectors: opts.vectors };
}

/** The dense vector as the embedded store keeps it: float32 values, little-endian. */
function denseBytes(p: Point): Buffer | undefined {
  const v = (p.vector as Record<string, unknown> | undefined)?.[DENSE_VECTOR];
  if (!Array.isArray(v)) return undefined;
  const f = Float32Array.from(v as number[]);
  const out = Buffer.alloc(f.length * 4);
  for (let k = 0; k < f.length; k++) out.writeFloatLE(f[k]!, k * 4);
  return out;
}
