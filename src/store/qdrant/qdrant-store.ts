import { randomUUID } from "node:crypto";
import type { QdrantClient } from "@qdrant/js-client-rest";
import { silentLogger, type Logger } from "../../model/logger.js";
import type { MemoryRecord, ScoredRecord } from "../../model/record.js";
import type { Subject } from "../../model/subject.js";
import { newRevision } from "../revision.js";
import { landedIn, trailAfter, trailOver } from "./revision-trail.js";
import { readable, matches } from "../record-filter.js";
import { RecordExistsError, RevisionConflictError, TargetsGoneError, TargetsSupersededError } from "../store-errors.js";
import type { ImportRow, ListPage, Neighbour, QueryVector, RecordQuery, ResolveResult, SchemaHistogram, Store, StorePart } from "../store.js";
import { clampCosine } from "../term-weight.js";
import { collectionTermWeights, rebuildTermVectors } from "./term-vectors.js";
import { isUuid } from "../../model/uuid.js";
import { QdrantAccessCounts } from "./access-counts.js";
import { connectQdrant } from "./client.js";
import { ensureCollection } from "./collection-setup.js";
import {
  CLAIM_LEASE_MS,
  DEFAULT_QDRANT_COLLECTION,
  DENSE_VECTOR,
  DERIVED_KEYS,
  LEXICAL_VECTOR,
  MAX_PAGE,
  META_PREFIX,
  RPC_BYTE_BUDGET,
  TERM_VECTORS_META,
  TERM_VECTORS_VERSION,
  VIEW_CEILING_BYTES,
} from "./layout.js";
import { attrsOf, encodePayload, type Payload } from "./point-payload.js";
import { deletePoints, nearestPoints } from "./lifecycle-points.js";
import { QdrantMigrationStore } from "./qdrant-migration-store.js";
import { QdrantPoints, type View } from "./points.js";
import { queryFilter, readFilter } from "./record-query-filter.js";
import { payloadSparse, querySparse, type SparseVector } from "./sparse-vector.js";
import { CLAIM_KEYS, empty, match, revisionIs, unclaimed } from "./write-conditions.js";

export type QdrantStoreOptions = {
  url: string;
  apiKey?: string;
  /** The alias the deployment's collection is reached through. */
  collection?: string;
  dim: number;
  log?: Logger;
  /** Per-request timeout; a request that takes longer is `deadline_exceeded`. */
  timeoutMs?: number;
  /** The most one response may carry (reference §7.1); tests lower it. */
  rpcByteBudget?: number;
  /** The per-record ceiling of the full view at the configured write caps. */
  fullRecordCeiling?: number;
  claimLeaseMs?: number;
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The Store on Qdrant, for several stateless servers on one collection.
 * Qdrant has no multi-point transactions and its writes return no affected
 * count, so every conditional write is a filtered write (the stored
 * revision, insert-only, a claim's lease) followed by a read-back that says
 * whether it landed. Only the Query API is used for search.
 */
export class QdrantStore implements Store {
  readonly kind = "qdrant" as const;
  private readonly client: QdrantClient;
  private readonly alias: string;
  private readonly budget: number;
  private readonly ceilings: Record<View, number>;
  private readonly lease: number;
  private readonly points: QdrantPoints;
  private readonly accessCounts: QdrantAccessCounts;
  private closed = false;

  private constructor(private readonly opts: QdrantStoreOptions) {
    this.client = connectQdrant(opts);
    this.alias = opts.collection || DEFAULT_QDRANT_COLLECTION;
    this.budget = opts.rpcByteBudget ?? RPC_BYTE_BUDGET;
    this.ceilings = { full: opts.fullRecordCeiling ?? VIEW_CEILING_BYTES.full, keys: VIEW_CEILING_BYTES.keys, tags: VIEW_CEILING_BYTES.tags };
    this.lease = opts.claimLeaseMs ?? CLAIM_LEASE_MS;
    this.points = new QdrantPoints(this.client, this.alias, this.budget, this.ceilings);
    this.accessCounts = new QdrantAccessCounts(this.points);
  }

  /** Checks the server version, makes or checks the collection behind the alias, then serves. */
  static async open(opts: QdrantStoreOptions): Promise<QdrantStore> {
    const store = new QdrantStore(opts);
    await store.points.call("write", () => ensureCollection(store.client, store.alias, opts.dim));
    store.termsCurrent = (await store.getMeta(TERM_VECTORS_META)) === TERM_VECTORS_VERSION;
    return store;
  }

  /** False on a collection whose term vectors predate the current ones, until warm() has rebuilt them. */
  private termsCurrent = true;

  readiness(): StorePart[] {
    return this.termsCurrent ? [] : ["terms"];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flushAccess();
    this.closed = true;
  }

  /** Rebuilds outdated term vectors in the background; searches stay correct meanwhile (records still match by meaning). */
  async warm(): Promise<void> {
    if (this.termsCurrent) return;
    this.rebuilding ??= this.points.call("write", async () => {
      await rebuildTermVectors(this.client, this.alias, this.opts.log ?? silentLogger, () => !this.closed);
      if (this.closed) return;
      await this.setMeta(TERM_VECTORS_META, TERM_VECTORS_VERSION);
      this.termsCurrent = true;
    }).finally(() => {
      this.rebuilding = undefined;
    });
    return this.rebuilding;
  }

  private rebuilding: Promise<void> | undefined;

  // ---- bounded reads --------------------------------------------------------

  /** Points per request for a view: as many as fit the byte budget at the view's per-record ceiling. */
  pageSize(view: View): number {
    return this.points.pageSize(view);
  }


  // ---- point reads ----------------------------------------------------------

  async getRaw(id: string): Promise<MemoryRecord | undefined> {
    if (!isUuid(id)) return undefined;
    return (await this.points.fullRecords([id]))[0];
  }

  async resolve(input: string): Promise<ResolveResult> {
    if (isUuid(input)) return { kind: "id", id: input.toLowerCase() };
    const page = await this.points.call("read", () =>
      this.client.scroll(this.alias, { filter: { must: [match("short_id", input.toUpperCase())] }, limit: 2, with_payload: false, with_vector: false }),
    );
    if (page.points.length === 0) return { kind: "not_found" };
    if (page.points.length > 1) return { kind: "ambiguous" };
    return { kind: "id", id: String(page.points[0]!.id) };
  }

  async getReadable(id: string, subject: Subject): Promise<MemoryRecord | undefined> {
    const r = await this.getRaw(id);
    return r && readable(attrsOf(r), { subject }) ? r : undefined;
  }

  async getOwned(id: string, subject: Subject): Promise<MemoryRecord | undefined> {
    const r = await this.getRaw(id);
    return r && readable(attrsOf(r), { subject, ownerOnly: true }) ? r : undefined;
  }

  async countShortId(shortId: string): Promise<number> {
    const res = await this.points.call("read", () => this.client.count(this.alias, { filter: { must: [match("short_id", shortId.toUpperCase())] }, exact: true }));
    return res.count;
  }

  async vectorOf(id: string): Promise<Float32Array | undefined> {
    if (!isUuid(id)) return undefined;
    const [p] = await this.points.retrieve([id], true);
    const v = (p?.vector as Record<string, unknown> | undefined)?.[DENSE_VECTOR];
    return Array.isArray(v) ? Float32Array.from(v as number[]) : undefined;
  }

  // ---- writes ---------------------------------------------------------------

  private point(payload: Payload, dense: Float32Array | number[]): { id: string; vector: Record<string, number[] | SparseVector>; payload: Payload } {
    const vector: Record<string, number[] | SparseVector> = { [DENSE_VECTOR]: Array.from(dense) };
    const sparse = payloadSparse(payload);
    if (sparse) vector[LEXICAL_VECTOR] = sparse;
    return { id: String(payload.id), vector, payload };
  }

  async create(record: MemoryRecord, vector: Float32Array): Promise<boolean> {
    const payload = encodePayload(record);
    await this.points.call("write", () => this.client.upsert(this.alias, { wait: true, ordering: "strong", update_mode: "insert_only", points: [this.point(payload, vector)] }));
    // Insert-only reports nothing either way: the read-back says whose record holds the id.
    return landedIn(await this.points.storedState(record.id), payload.revision as string);
  }

  async replace(record: MemoryRecord, vector?: Float32Array): Promise<void> {
    const deadline = Date.now() + this.lease * 2;
    for (;;) {
      let dense: Float32Array | number[] | undefined = vector;
      if (!dense) {
        const [p] = await this.points.retrieve([record.id], true);
        const v = (p?.vector as Record<string, unknown> | undefined)?.[DENSE_VECTOR];
        if (!p || !Array.isArray(v)) throw new RevisionConflictError(record.id, !p);
        dense = v as number[];
      }
      const payload = encodePayload(record);
      // The core's record carries the revision it read, not that version's trail: the trail restarts from it.
      if (record.revision !== undefined) payload[DERIVED_KEYS.revisionTrail] = trailOver(record.revision);
      // update_only: a replace never resurrects a deleted record; the filter is the compare of compare-and-swap.
      await this.points.call("write", () =>
        this.client.upsert(this.alias, {
          wait: true,
          ordering: "strong",
          update_mode: "update_only",
          update_filter: { must: [revisionIs(record.revision), unclaimed(Date.now())] },
          points: [this.point(payload, dense!)],
        }),
      );
      const stored = await this.points.storedState(record.id);
      if (landedIn(stored, payload.revision as string)) return;
      if (!stored) throw new RevisionConflictError(record.id, true);
      const claimedUntil = stored[DERIVED_KEYS.claimUntil];
      // The revision read is still there but a supersede holds a claim on it: wait for it to finish or expire.
      if (stored.revision === record.revision && typeof claimedUntil === "number" && claimedUntil >= Date.now() && Date.now() < deadline) {
        await sleep(5 + Math.random() * 15);
        continue;
      }
      throw new RevisionConflictError(record.id, false);
    }
  }

  async supersede(record: MemoryRecord, vector: Float32Array, targetIds: readonly string[], subject: Subject): Promise<void> {
    const ownedBy = subject.anonymous ? "" : subject.owner;
    const claimed = new Map<string, { rev: string; trail: string[] }>();
    const deadline = Date.now() + this.lease * 2;
    try {
      // Claims go in id order, so two supersedes sharing targets never wait on each other in a cycle.
      for (const id of [...new Set(targetIds)].sort()) {
        for (;;) {
          const stored = isUuid(id) ? await this.points.storedState(id) : undefined;
          if (!stored || stored.owner !== ownedBy) throw new TargetsGoneError("target gone");
          if (stored.superseded_by) throw new TargetsSupersededError([id]);
          const until = stored[DERIVED_KEYS.claimUntil];
          if (typeof until === "number" && until >= Date.now()) {
            if (Date.now() >= deadline) throw new TargetsSupersededError([id]);
            await sleep(5 + Math.random() * 20);
            continue;
          }
          const claimRev = newRevision();
          const trail = trailOver(stored);
          await this.points.call("write", () =>
            this.client.setPayload(this.alias, {
              wait: true,
              ordering: "strong",
              filter: { must: [{ has_id: [id] }, revisionIs(stored.revision as string | undefined), empty("superseded_by"), unclaimed(Date.now())] },
              payload: { revision: claimRev, [DERIVED_KEYS.revisionTrail]: trail, [DERIVED_KEYS.claimBy]: record.id, [DERIVED_KEYS.claimUntil]: Date.now() + this.lease },
            }),
          );
          // An access count may land on a claim (it ignores claims), so the claim may be in the trail already.
          if (landedIn(await this.points.storedState(id), claimRev)) {
            claimed.set(id, { rev: claimRev, trail: trailAfter(claimRev, trail) });
            break;
          }
        }
      }
      if (!(await this.create(record, vector))) throw new RecordExistsError(record.id);
    } catch (err) {
      await this.releaseClaims(claimed);
      throw err;
    }
    for (const [id, claim] of claimed) await this.markSuperseded(id, claim, record.id);
  }

  /** Turns a claim into superseded_by, retrying on a revision that moved (a lease that ran out under a stall). */
  private async markSuperseded(id: string, claim: { rev: string; trail: string[] }, by: string): Promise<void> {
    let expect: string | undefined = claim.rev;
    let trail = claim.trail;
    for (let attempt = 0; attempt < 8; attempt++) {
      await this.points.call("write", () =>
        this.client.batchUpdate(this.alias, {
          wait: true,
          ordering: "strong",
          operations: [
            { delete_payload: { keys: CLAIM_KEYS, filter: { must: [{ has_id: [id] }, revisionIs(expect)] } } },
            { set_payload: { payload: { superseded_by: by, revision: newRevision(), [DERIVED_KEYS.revisionTrail]: trail }, filter: { must: [{ has_id: [id] }, revisionIs(expect), empty("superseded_by")] } } },
          ],
        }),
      );
      const stored = await this.points.storedState(id);
      if (!stored || stored.superseded_by === by) return;
      if (stored.superseded_by) {
        // Another supersede took the target after this one's lease ran out: undo the new head rather than leave two.
        await this.points.call("write", () => this.client.delete(this.alias, { wait: true, ordering: "strong", points: [by] }));
        throw new TargetsSupersededError([id]);
      }
      expect = stored.revision as string | undefined;
      trail = trailOver(stored);
    }
    throw new TargetsSupersededError([id]);
  }

  private async releaseClaims(claimed: ReadonlyMap<string, { rev: string }>): Promise<void> {
    for (const [id, { rev: claimRev }] of claimed) {
      try {
        await this.points.call("write", () =>
          this.client.deletePayload(this.alias, { wait: true, ordering: "strong", keys: CLAIM_KEYS, filter: { must: [{ has_id: [id] }, revisionIs(claimRev)] } }),
        );
      } catch {
        // An unreleased claim expires with its lease; the caller hears the original error.
      }
    }
  }

  async importBatch(rows: readonly ImportRow[]): Promise<void> {
    const points = rows.map((r) => this.point(encodePayload(r.record, r.version, "carried"), r.vector));
    const size = this.pageSize("full");
    for (let i = 0; i < points.length; i += size) {
      await this.points.call("write", () => this.client.upsert(this.alias, { wait: true, ordering: "strong", points: points.slice(i, i + size) }));
    }
  }

  async delete(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const existed = (await this.points.storedState(id)) !== undefined;
    await this.points.call("write", () => this.client.delete(this.alias, { wait: true, ordering: "strong", points: [id] }));
    return existed;
  }

  async deleteMany(ids: readonly string[]): Promise<number> {
    return deletePoints(this.points, ids);
  }

  async deleteOwnedInScope(scope: string, subject: Subject): Promise<number> {
    const ids: string[] = [];
    const filter = { must: [...(readFilter({ subject, ownerOnly: true }).must ?? []), match("scope", scope)] };
    await this.points.scrollKeys(filter, [], "keys", (p) => ids.push(String(p.id)));
    for (let i = 0; i < ids.length; i += MAX_PAGE) {
      await this.points.call("write", () => this.client.delete(this.alias, { wait: true, ordering: "strong", points: ids.slice(i, i + MAX_PAGE) }));
    }
    return ids.length;
  }

  // ---- filtered reads -------------------------------------------------------

  async count(query: RecordQuery): Promise<number> {
    const res = await this.points.call("read", () => this.client.count(this.alias, { filter: queryFilter(query), exact: true }));
    return res.count;
  }

  /**
   * Orders by created_at then id, as the embedded store does: the keys view
   * (id and created_at) of every match is read and sorted here, since
   * Qdrant's order_by leaves ties unordered and cannot page by offset; only
   * the page's records are read in full.
   */
  async list(query: RecordQuery, page: ListPage): Promise<{ records: MemoryRecord[]; total: number }> {
    const keys: { id: string; c: string }[] = [];
    await this.points.scrollKeys(queryFilter(query), ["created_at"], "keys", (p) => keys.push({ id: String(p.id), c: String(p.payload?.created_at ?? "") }));
    const dir = page.order === "desc" ? -1 : 1;
    keys.sort((x, y) => (x.c < y.c ? -dir : x.c > y.c ? dir : x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    let rows = keys;
    if (page.cursor) {
      const { c, seen } = page.cursor;
      const seenSet = new Set(seen);
      rows = rows.filter((k) => (dir < 0 ? k.c < c : k.c > c) || (k.c === c && !seenSet.has(k.id)));
    }
    const start = page.offset ?? 0;
    const slice = rows.slice(start, start + page.limit);
    return { records: await this.points.fullRecords(slice.map((k) => k.id)), total: keys.length };
  }

  /**
   * Hybrid candidates in one Query API call: the dense neighbours and the
   * term matches (a sparse query of ones under the `idf` modifier: the summed
   * weight of the query terms a record holds), each under the query's
   * filter, then the union scored by dense cosine, as the embedded store
   * scores its candidates. Ties go by id, as there; the core ranks them.
   */
  async search(query: RecordQuery, vector: QueryVector, text: string, candidates: number): Promise<ScoredRecord[]> {
    const filter = queryFilter(query);
    const sparse = querySparse(text);
    // Both lanes are one request, which needs the vector.
    const dense = Array.from(await vector);
    const prefetch: Record<string, unknown>[] = [{ query: dense, using: DENSE_VECTOR, filter, limit: candidates }];
    if (sparse) prefetch.push({ query: sparse, using: LEXICAL_VECTOR, filter, limit: candidates });
    const res = await this.points.call("read", () =>
      this.client.query(this.alias, { prefetch: prefetch as never, query: dense, using: DENSE_VECTOR, filter, limit: candidates * 2, with_payload: false, with_vector: false }),
    );
    const scores = new Map(res.points.map((p) => [String(p.id), p.score]));
    const records = await this.points.fullRecords([...scores.keys()]);
    return records
      .filter((r) => matches(attrsOf(r), query))
      .map((r) => ({ record: r, score: clampCosine(scores.get(r.id)!) }))
      .sort((x, y) => y.score - x.score || (x.record.id < y.record.id ? -1 : 1));
  }

  async neighbours(ids: readonly string[], k: number, query: RecordQuery): Promise<Map<string, Neighbour[]>> {
    return nearestPoints(this.points, ids, k, query);
  }

  async termWeights(terms: readonly string[]): Promise<Map<string, number>> {
    return this.points.call("read", () => collectionTermWeights(this.client, this.alias, terms));
  }

  async termRecordCount(): Promise<number> {
    // Every point is a record and carries a term vector: the N Qdrant's `idf` counts over.
    const res = await this.points.call("read", () => this.client.count(this.alias, { exact: true }));
    return res.count;
  }

  async tagCounts(query: RecordQuery): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    await this.points.scrollKeys(queryFilter(query), ["tags"], "tags", (p) => {
      for (const t of new Set((p.payload?.tags as string[] | undefined) ?? [])) counts.set(t, (counts.get(t) ?? 0) + 1);
    });
    return counts;
  }

  async scopeCounts(subject: Subject): Promise<{ scopes: { scope: string; count: number }[]; approximate: boolean }> {
    const counts = new Map<string, number>();
    await this.points.scrollKeys(readFilter({ subject }), ["scope"], "keys", (p) => {
      const s = String(p.payload?.scope ?? "");
      counts.set(s, (counts.get(s) ?? 0) + 1);
    });
    const scopes = [...counts].map(([scope, count]) => ({ scope, count })).sort((x, y) => (x.scope < y.scope ? -1 : 1));
    return { scopes, approximate: false };
  }

  async schemaHistogram(): Promise<SchemaHistogram> {
    const versions = new Map<number, number>();
    let absent = 0;
    let total = 0;
    await this.points.scrollKeys(undefined, ["schema_version"], "keys", (p) => {
      total++;
      const v = p.payload?.schema_version;
      if (typeof v === "number") versions.set(v, (versions.get(v) ?? 0) + 1);
      else absent++;
    });
    return { versions, absent, total };
  }

  // ---- access counters (access-counts.ts) -------------------------------------

  noteAccess(id: string, at: string): void {
    if (this.closed) return;
    this.accessCounts.note(id, at);
  }

  /** Resolves once every counted read is written (or dropped, see QdrantAccessCounts.flush). */
  flushAccess(): Promise<void> {
    return this.accessCounts.flush();
  }


  // ---- migrations ------------------------------------------------------------

  /** The migration engine's view of this store's collection, for the operator verbs. */
  migrationStore(): QdrantMigrationStore {
    return new QdrantMigrationStore(this.client, this.alias, this.budget);
  }

  // ---- meta ------------------------------------------------------------------

  /** The physical collection behind the alias now (an alias switch may have moved it). */
  private async physical(): Promise<string> {
    const { aliases } = await this.points.call("read", () => this.client.getAliases());
    return aliases.find((a) => a.alias_name === this.alias)?.collection_name ?? this.alias;
  }

  /** Meta keys live in the collection's metadata, under META_PREFIX, so they move with the collection. */
  async getMeta(key: string): Promise<string | undefined> {
    const name = await this.physical();
    const info = await this.points.call("read", () => this.client.getCollection(name));
    const meta = (info.config as { metadata?: Record<string, unknown> | null }).metadata ?? {};
    const v = meta[META_PREFIX + key];
    return typeof v === "string" ? v : undefined;
  }

  async setMeta(key: string, value: string): Promise<void> {
    const name = await this.physical();
    await this.points.call("write", () => this.client.updateCollection(name, { metadata: { [META_PREFIX + key]: value } }));
  }

  /** A random token for tests and tools that need a collection of their own. */
  static uniqueCollection(prefix: string): string {
    return `${prefix}-${randomUUID().slice(0, 8)}`;
  }
}
