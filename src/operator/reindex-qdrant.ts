import type { QdrantClient } from "@qdrant/js-client-rest";
import { embeddingText, identityKey, type Embedder } from "../embed/index.js";
import { META_EMBEDDER_IDENTITY } from "../store/index.js";
import {
  aliasTarget,
  checkServerVersion,
  connectQdrant,
  createLayout,
  DEFAULT_QDRANT_COLLECTION,
  DENSE_VECTOR,
  payloadSparse,
  LEXICAL_VECTOR,
  MAX_PAGE,
  mapQdrantError,
  META_PREFIX,
  physicalCollectionName,
  QdrantSetupError,
  RPC_BYTE_BUDGET,
  VIEW_CEILING_BYTES,
  type QdrantConnection,
} from "../store/qdrant/index.js";
import type { ReindexProgress, ReindexReport } from "./reindex.js";

/**
 * `engram reindex` on a Qdrant deployment. Servers keep serving the
 * generation the alias points at while the next one is filled beside it;
 * the alias moves in one request only when the next generation holds every
 * record, re-embedded. See docs/qdrant.md ("Reindex") for the guarantees and
 * the window that remains.
 */

/** Metadata of a generation `engram reindex` is building or has just switched to. */
export const REINDEX_META = {
  /** On the next generation from its creation until the run is done: the identity it is being filled for. */
  target: "engram_reindex_to",
  /** The generation it replaces, dropped once the alias has moved and the late writes are copied. */
  source: "engram_reindex_from",
} as const;

/** Catch-up passes after the first copy before a run gives up without moving the alias. */
export const MAX_CATCHUP_PASSES = 8;
/** How long after the switch the run waits for writes already under way on the old generation before its re-check. */
export const SWITCH_SETTLE_MS = 2_000;

export type { QdrantConnection } from "../store/qdrant/index.js";

export type QdrantReindexOptions = {
  apply: boolean;
  batch?: number;
  /** After each written batch; may be async. Throwing stops the run there (what a kill does). */
  onProgress?: (p: ReindexProgress) => void | Promise<void>;
  /** Called between two written batches; throwing stops the run there (a --timeout). */
  between?: () => void;
  /** The run's milestones, for tests that write at exactly those moments. */
  onPhase?: (phase: "copied" | "switched") => void | Promise<void>;
  /** Overrides SWITCH_SETTLE_MS (tests use 0). */
  settleMs?: number;
};

/** The copy could not catch up with the servers' writes: nothing was switched. */
export class ReindexBehindError extends Error {
  override readonly name = "ReindexBehindError";
  constructor() {
    super(
      `servers kept writing faster than the copy caught up (${MAX_CATCHUP_PASSES} catch-up passes); ` +
        "the alias was not moved and servers still serve the old generation; run `engram reindex --apply` again to continue",
    );
  }
}

type Json = Record<string, unknown>;
type Point = { id: string | number; payload?: Json | null; vector?: unknown };
/** What the diff of two generations looks at: a record's revision and its embedder stamp. */
type Stamp = { rev: unknown; identity: unknown };
type Described = { dim: number | undefined; meta: Json };
/** A point as written into the next generation. */
type Reembedded = { id: string; vector: Json; payload: Json };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const FULL_PAGE = Math.min(MAX_PAGE, Math.max(1, Math.floor(RPC_BYTE_BUDGET / VIEW_CEILING_BYTES.full)));
const KEYS_PAGE = Math.min(MAX_PAGE, Math.max(1, Math.floor(RPC_BYTE_BUDGET / VIEW_CEILING_BYTES.keys)));
const revisionIs = (rev: unknown): Json => (typeof rev === "string" ? { key: "revision", match: { value: rev } } : { is_empty: { key: "revision" } });

/** The generation number of a physical collection behind `alias`; a name of another shape counts as the first. */
export function generationOf(alias: string, physical: string): number {
  const prefix = physicalCollectionName(alias, 0).slice(0, -1);
  const rest = physical.startsWith(prefix) ? physical.slice(prefix.length) : "";
  return /^[1-9][0-9]*$/.test(rest) ? Number(rest) : 1;
}

/**
 * Re-embeds every record of the collection behind the alias into the next
 * generation and moves the alias there. Preview by default.
 *
 * Crash-safe and resumable: the next generation is marked with the target
 * identity from its creation, a rerun continues into it and skips every
 * point already there with the source's revision and the target's stamp,
 * and the alias moves only after a pass finds nothing left to copy. Writes
 * servers make meanwhile land on the old generation and are picked up by
 * the catch-up passes, and after the switch by one re-check.
 */
export async function reindexQdrant(conn: QdrantConnection, embedder: Embedder, opts: QdrantReindexOptions): Promise<ReindexReport> {
  const run = new QdrantReindex(conn, embedder, opts);
  return run.run();
}

class QdrantReindex {
  private readonly client: QdrantClient;
  private readonly alias: string;
  private readonly to: string;
  private readonly dim: number;
  private readonly batch: number;
  private readonly report: ReindexReport;
  private total = 0;
  private batches = 0;

  constructor(
    conn: QdrantConnection,
    private readonly embedder: Embedder,
    private readonly opts: QdrantReindexOptions,
  ) {
    this.client = connectQdrant(conn);
    this.alias = conn.collection || DEFAULT_QDRANT_COLLECTION;
    this.to = identityKey(embedder.identity);
    this.dim = embedder.identity.dim;
    this.batch = opts.batch ?? 64;
    this.report = { dry_run: !opts.apply, from_identity: "", to_identity: this.to, records: 0, pending: 0, reembedded: 0, already_done: 0 };
  }

  /**
   * Every client call goes through here, so Qdrant faults read as the
   * store-fault vocabulary (exit 5 or 6). An --apply run is a write as a
   * whole: a Qdrant that cannot be reached "cannot accept writes", as for
   * `engram import`, whichever request found it down.
   */
  private async q<T>(access: "read" | "write", fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw mapQdrantError(err, this.opts.apply ? "write" : access);
    }
  }

  async run(): Promise<ReindexReport> {
    const { version } = await this.q("read", () => this.client.versionInfo());
    checkServerVersion(version);
    const source = await this.q("read", () => aliasTarget(this.client, this.alias));
    // No collection yet: the first server start makes one for its own embedder.
    if (source === undefined) return this.report;
    const src = (await this.describe(source))!;
    this.report.from_identity = stringMeta(src.meta, META_PREFIX + META_EMBEDDER_IDENTITY) ?? "";

    if (this.report.from_identity === this.to && src.dim === this.dim) {
      this.report.records = (await this.q("read", () => this.client.count(source, { exact: true }))).count;
      if (this.opts.apply) await this.finishEarlierRun(source, src);
      return this.report;
    }

    const next = physicalCollectionName(this.alias, generationOf(this.alias, source) + 1);
    const existing = await this.describe(next);
    const marker = existing?.meta[REINDEX_META.target];
    const resumable = existing !== undefined && existing.dim === this.dim && (marker === this.to || marker === undefined || marker === null);
    let sourceStamps = await this.stamps(source);
    let targetStamps = resumable ? await this.stamps(next) : new Map<string, Stamp>();
    let { stale, gone } = this.diff(sourceStamps, targetStamps);
    this.report.records = sourceStamps.size;
    this.report.pending = stale.length;
    this.report.already_done = sourceStamps.size - stale.length;
    if (!this.opts.apply) return this.report;

    // The first batch is embedded before anything is written, as on the
    // embedded store: an embedder that cannot answer leaves the deployment
    // exactly as it was, with no next generation made.
    let first = stale.length > 0 ? await this.reembed(await this.retrieve(source, stale.slice(0, this.batch))) : undefined;

    if (existing !== undefined && !resumable) {
      // Left by a run for another embedder; never served (the alias is not on it), so it can go.
      if (typeof marker !== "string") {
        throw new QdrantSetupError("the collection engram reindex would build next already exists and was not made by it: remove it, or point ENGRAM_QDRANT_COLLECTION elsewhere");
      }
      await this.q("write", () => this.client.deleteCollection(next));
    }
    if (!resumable || typeof marker !== "string") {
      // The marker goes in with the layout's metadata, the last step of making the collection.
      await this.q("write", () => createLayout(this.client, next, this.dim, { ...storeMeta(src.meta), [REINDEX_META.target]: this.to, [REINDEX_META.source]: source }));
    }

    this.total = stale.length;
    await this.opts.onProgress?.({ done: 0, total: this.total });
    for (let pass = 0; stale.length > 0 || gone.length > 0; pass++) {
      if (pass > MAX_CATCHUP_PASSES) throw new ReindexBehindError();
      if (gone.length > 0) await this.deletePoints(next, gone);
      await this.copy(source, next, stale, first);
      first = undefined;
      sourceStamps = await this.stamps(source);
      targetStamps = await this.stamps(next);
      ({ stale, gone } = this.diff(sourceStamps, targetStamps));
      this.total += stale.length;
    }

    // The store's meta keys as they are now (a server may have set one meanwhile), then the identity that makes it servable.
    const latest = (await this.describe(source))?.meta ?? src.meta;
    await this.q("write", () =>
      this.client.updateCollection(next, { metadata: { ...storeMeta(latest), [META_PREFIX + META_EMBEDDER_IDENTITY]: this.to } }),
    );
    await this.opts.onPhase?.("copied");
    // One request, so a reader always finds the alias on one generation or the other, never on neither.
    await this.q("write", () =>
      this.client.updateCollectionAliases({
        actions: [{ delete_alias: { alias_name: this.alias } }, { create_alias: { collection_name: next, alias_name: this.alias } }],
      }),
    );
    await this.opts.onPhase?.("switched");
    await sleep(this.opts.settleMs ?? SWITCH_SETTLE_MS);
    await this.copyLateWrites(source, next, targetStamps);
    await this.dropReplaced(source, next);
    return this.report;
  }

  /**
   * A rerun after a switch whose old generation was not dropped yet (or a
   * stale next generation a run for another embedder left): finish the
   * clean-up. The late-write re-check is not repeated: what it compared
   * against died with the interrupted run (docs/qdrant.md).
   */
  private async finishEarlierRun(current: string, info: Described): Promise<void> {
    const replaced = info.meta[REINDEX_META.source];
    if (typeof replaced === "string" && replaced !== current) await this.dropReplaced(replaced, current);
    const next = physicalCollectionName(this.alias, generationOf(this.alias, current) + 1);
    const stale = await this.describe(next);
    if (stale && typeof stale.meta[REINDEX_META.target] === "string") await this.q("write", () => this.client.deleteCollection(next));
  }

  private async dropReplaced(old: string, current: string): Promise<void> {
    const { aliases } = await this.q("read", () => this.client.getAliases());
    // Never a collection some alias still serves.
    if (!aliases.some((a) => a.collection_name === old)) await this.q("write", () => this.client.deleteCollection(old));
    await this.q("write", () => this.client.updateCollection(current, { metadata: { [REINDEX_META.target]: null, [REINDEX_META.source]: null } }));
  }

  /** A collection's dense dimension and metadata, undefined when it does not exist. */
  private async describe(name: string): Promise<Described | undefined> {
    const { exists } = await this.q("read", () => this.client.collectionExists(name));
    if (!exists) return undefined;
    const info = await this.q("read", () => this.client.getCollection(name));
    const vectors = info.config.params.vectors as Record<string, { size?: number }> | undefined;
    const meta = ((info.config as { metadata?: Json | null }).metadata ?? {}) as Json;
    return { dim: vectors?.[DENSE_VECTOR]?.size, meta };
  }

  /** Every point's revision and embedder stamp, in the keys view, page by page. */
  private async stamps(name: string): Promise<Map<string, Stamp>> {
    const out = new Map<string, Stamp>();
    let offset: string | number | undefined;
    for (;;) {
      const page = await this.q("read", () =>
        this.client.scroll(name, { limit: KEYS_PAGE, with_payload: ["revision", "embedder_identity"], with_vector: false, ...(offset === undefined ? {} : { offset }) }),
      );
      for (const p of page.points) out.set(String(p.id), { rev: p.payload?.revision, identity: p.payload?.embedder_identity });
      const nextOffset = page.next_page_offset;
      if (nextOffset === undefined || nextOffset === null || typeof nextOffset === "object") return out;
      offset = nextOffset as string | number;
    }
  }

  /** What the target still lacks: records missing, behind the source's revision or stamped by another embedder; and points deleted from the source. */
  private diff(source: ReadonlyMap<string, Stamp>, target: ReadonlyMap<string, Stamp>): { stale: string[]; gone: string[] } {
    const stale: string[] = [];
    for (const [id, s] of source) {
      const t = target.get(id);
      if (!t || t.rev !== s.rev || t.identity !== this.to) stale.push(id);
    }
    const gone = [...target.keys()].filter((id) => !source.has(id));
    return { stale, gone };
  }

  /** Full points by id, in pages the read budget allows; a point deleted meanwhile is simply absent. */
  private async retrieve(name: string, ids: readonly string[]): Promise<Point[]> {
    const out: Point[] = [];
    for (let i = 0; i < ids.length; i += FULL_PAGE) {
      const part = ids.slice(i, i + FULL_PAGE);
      out.push(...((await this.q("read", () => this.client.retrieve(name, { ids: part, with_payload: true, with_vector: false }))) as Point[]));
    }
    return out;
  }

  /** Source points as target points: payload unchanged but for the embedder stamp, vectors recomputed. */
  private async reembed(points: readonly Point[]): Promise<Reembedded[]> {
    const texts = points.map((p) => embeddingText(String(p.payload?.content ?? ""), tagsOf(p.payload)));
    const vectors = await this.embedder.embedDocuments(texts);
    return points.map((p, i) => {
      const payload: Json = { ...(p.payload ?? {}), embedder_identity: this.to };
      const vector: Json = { [DENSE_VECTOR]: Array.from(vectors[i]!) };
      const sparse = payloadSparse(payload);
      if (sparse) vector[LEXICAL_VECTOR] = sparse;
      return { id: String(p.id), vector, payload };
    });
  }

  /**
   * Copies records into the not-yet-served target in batches, each one
   * written before the next is read; `first`, when given, is the first
   * batch already re-embedded.
   */
  private async copy(from: string, into: string, ids: readonly string[], first?: Reembedded[]): Promise<void> {
    for (let i = 0; i < ids.length; i += this.batch) {
      // Between two written batches, and only while work remains.
      if (this.batches++ > 0) this.opts.between?.();
      const points = i === 0 && first !== undefined ? first : await this.reembed(await this.retrieve(from, ids.slice(i, i + this.batch)));
      for (let j = 0; j < points.length; j += FULL_PAGE) {
        const part = points.slice(j, j + FULL_PAGE);
        await this.q("write", () => this.client.upsert(into, { wait: true, ordering: "strong", points: part as never }));
      }
      this.report.reembedded += points.length;
      await this.opts.onProgress?.({ done: this.report.reembedded, total: Math.max(this.total, this.report.reembedded) });
    }
  }

  private async deletePoints(name: string, ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += MAX_PAGE) {
      const part = ids.slice(i, i + MAX_PAGE);
      await this.q("write", () => this.client.delete(name, { wait: true, ordering: "strong", points: part }));
    }
  }

  /**
   * After the switch: a write a server made on the old generation after the
   * last catch-up pass read it (it resolved the alias before the switch) is
   * copied over, unless the record was written on the new generation since,
   * which then wins. Conditional on the revision the copy left, so a
   * server's write on the new generation is never overwritten.
   */
  private async copyLateWrites(old: string, current: string, copied: ReadonlyMap<string, Stamp>): Promise<void> {
    const onOld = await this.stamps(old);
    const onCurrent = await this.stamps(current);
    const late = [...onOld].filter(([id, s]) => {
      const c = copied.get(id);
      if (c && c.rev === s.rev) return false;
      return onCurrent.get(id)?.rev === c?.rev;
    });
    for (const [id] of late) {
      const [point] = await this.reembed(await this.retrieve(old, [id]));
      if (!point) continue;
      const c = copied.get(id);
      await this.q("write", () =>
        this.client.upsert(current, {
          wait: true,
          ordering: "strong",
          // update_only: a record deleted on the new generation since stays deleted.
          ...(c ? { update_mode: "update_only" as const, update_filter: { must: [revisionIs(c.rev)] } } : { update_mode: "insert_only" as const }),
          points: [point as never],
        }),
      );
      this.report.reembedded++;
    }
    for (const [id, c] of copied) {
      if (onOld.has(id) || onCurrent.get(id)?.rev !== c.rev) continue;
      // Deleted on the old generation after the last pass, untouched on the new one since.
      await this.q("write", () =>
        this.client.delete(current, { wait: true, ordering: "strong", filter: { must: [{ has_id: [id] }, revisionIs(c.rev)] } as never }),
      );
    }
  }
}

function tagsOf(payload: Json | null | undefined): string[] {
  const tags = payload?.tags;
  return Array.isArray(tags) ? tags.map(String) : [];
}

function stringMeta(meta: Json, key: string): string | undefined {
  const v = meta[key];
  return typeof v === "string" ? v : undefined;
}

/** The Store's meta keys of a generation, which move with the data; the embedder identity is set last, apart. */
function storeMeta(meta: Json): Json {
  return Object.fromEntries(Object.entries(meta).filter(([k]) => k.startsWith(META_PREFIX) && k !== META_PREFIX + META_EMBEDDER_IDENTITY));
}
