import { randomUUID } from "node:crypto";
import type { QdrantClient } from "@qdrant/js-client-rest";
import type { MemoryRecord } from "../../model/record.js";
import type { BatchBudget, MigrationStore, PassSource, RowRewrite, VersionedRow, WriteOutcome } from "../migrations/migration-store.js";
import { RANDOM_MINT, type StepContext } from "../migrations/step.js";
import { DERIVED_KEYS, MAX_PAGE, MIGRATION_PIN_INDEX, VIEW_CEILING_BYTES } from "./layout.js";
import { encodePayload, type Payload } from "./point-payload.js";
import { landedIn, trailOver } from "./revision-trail.js";
import { mapQdrantError, type QdrantAccess } from "./qdrant-fault.js";
import type { QCondition, QFilter } from "./record-query-filter.js";

type Point = { id: string | number; payload?: Payload | null };
type Offset = string | number | undefined;

const match = (key: string, value: string): QCondition => ({ key, match: { value } });
const empty = (key: string): QCondition => ({ is_empty: { key } });
/** Below a version; an absent version reads as 0, so it is below every positive target. */
const below = (target: number): QCondition => ({ should: [empty("schema_version"), { key: "schema_version", range: { lt: target } }] });
const above = (version: number): QCondition => ({ key: "schema_version", range: { gt: version } });
const revisionIs = (rev: unknown): QCondition => (typeof rev === "string" ? match("revision", rev) : empty("revision"));
const unclaimed = (now: number): QCondition => ({ should: [empty(DERIVED_KEYS.claimUntil), { key: DERIVED_KEYS.claimUntil, range: { lt: now } }] });

/** The payload as the record codec wrote it: the keys only the store derives are not the record's. */
function recordPayload(stored: Payload): Payload {
  const copy: Payload = { ...stored };
  for (const key of Object.values(DERIVED_KEYS)) delete copy[key];
  return copy;
}

const versionOf = (p: Payload): number => (typeof p.schema_version === "number" ? p.schema_version : 0);
const bytesOf = (p: Payload): number => Buffer.byteLength(JSON.stringify(p), "utf8");

/**
 * The migration engine's view of a Qdrant collection. Qdrant has no
 * transactions, so the pin is a payload key (one token per run, set over a
 * filter), the backlog is what still carries the token and is still below
 * the target (a count, never a scan), and every rewrite is an
 * `overwrite_payload` filtered on the revision it read and on no live
 * supersede claim, followed by a read-back: a row some server wrote in
 * between keeps that write and stays in the backlog for the next pass.
 * Vectors are never read or written: no step changes content or tags, the
 * only inputs of the vectors.
 *
 * A crash leaves rows either at the target (written) or below it with a
 * stale token, which the next run's pin overwrites; a rerun converges.
 */
export class QdrantMigrationStore implements MigrationStore {
  private pin: { token: string; target: number } | undefined;

  constructor(
    private readonly client: QdrantClient,
    private readonly alias: string,
    /** The most one response may carry (reference §7.1). */
    private readonly rpcByteBudget: number,
  ) {}

  private async call<T>(access: QdrantAccess, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw mapQdrantError(err, access);
    }
  }

  private async count(filter: QFilter): Promise<number> {
    return (await this.call("read", () => this.client.count(this.alias, { filter, exact: true }))).count;
  }

  private pinned(): QCondition[] {
    return this.pin ? [match(DERIVED_KEYS.migratePin, this.pin.token)] : [{ should: [] }];
  }

  async pinBelow(target: number): Promise<number> {
    // A collection made before the pin key was indexed gets its index here; creating an existing one is a no-op.
    await this.call("write", () =>
      this.client.createPayloadIndex(this.alias, { field_name: MIGRATION_PIN_INDEX.key, field_schema: MIGRATION_PIN_INDEX.schema, wait: true }),
    );
    const token = randomUUID();
    // set_payload leaves the revision alone: pinning is not a write any conditional writer has to lose to.
    await this.call("write", () =>
      this.client.setPayload(this.alias, { wait: true, ordering: "strong", filter: { must: [below(target)] }, payload: { [DERIVED_KEYS.migratePin]: token } }),
    );
    this.pin = { token, target };
    return this.count({ must: [...this.pinned(), below(target)] });
  }

  async pendingCount(): Promise<number> {
    if (!this.pin) return 0;
    return this.count({ must: [...this.pinned(), below(this.pin.target)] });
  }

  async countBelow(target: number, pinnedOnly: boolean): Promise<number> {
    return this.count({ must: [...(pinnedOnly ? this.pinned() : []), below(target)] });
  }

  async countAbove(version: number): Promise<number> {
    return this.count({ must: [above(version)] });
  }

  async versionHistogramAbove(version: number): Promise<Map<number, number>> {
    const hist = new Map<number, number>();
    let offset: Offset;
    const limit = Math.min(MAX_PAGE, Math.max(1, Math.floor(this.rpcByteBudget / VIEW_CEILING_BYTES.keys)));
    do {
      const page = await this.scroll({ must: [above(version)] }, limit, ["schema_version"], offset);
      for (const p of page.points) {
        const v = versionOf(p.payload ?? {});
        hist.set(v, (hist.get(v) ?? 0) + 1);
      }
      offset = page.next;
    } while (offset !== undefined);
    return hist;
  }

  private async scroll(filter: QFilter, limit: number, withPayload: boolean | string[], offset: Offset): Promise<{ points: Point[]; next: Offset }> {
    const page = await this.call("read", () =>
      this.client.scroll(this.alias, { filter, limit, with_payload: withPayload, with_vector: false, ...(offset === undefined ? {} : { offset }) }),
    );
    const next = page.next_page_offset;
    return { points: page.points as Point[], next: next === undefined || next === null || typeof next === "object" ? undefined : (next as string | number) };
  }

  /**
   * One batch of `filter` from `offset`, in id order: at most `budget.rows`
   * rows and, past the first, no more than `budget.bytes` of payload. Each
   * request asks for as many rows as the sizes seen so far say fit half the
   * response budget, starting with one. `next` is where the following batch
   * starts (the first row not taken), undefined at the end.
   */
  private async readBatch(filter: QFilter, budget: BatchBudget, offset: Offset, read?: Map<string, Payload>): Promise<{ rows: VersionedRow[]; next: Offset }> {
    const rows: VersionedRow[] = [];
    let bytes = 0;
    let seen = 0;
    let seenBytes = 0;
    let next = offset;
    for (;;) {
      if (rows.length >= budget.rows || (rows.length > 0 && bytes >= budget.bytes)) return { rows, next };
      const avg = seen === 0 ? undefined : seenBytes / seen;
      const fit = avg === undefined ? 1 : Math.max(1, Math.floor(this.rpcByteBudget / (2 * avg)));
      const limit = Math.min(MAX_PAGE, budget.rows - rows.length, fit);
      const page = await this.scroll(filter, limit, true, next);
      for (let i = 0; i < page.points.length; i++) {
        const p = page.points[i]!;
        if (rows.length > 0 && bytes >= budget.bytes) return { rows, next: p.id };
        const payload = recordPayload(p.payload ?? {});
        const size = bytesOf(payload);
        seen++;
        seenBytes += size;
        bytes += size;
        rows.push({ id: String(p.id), version: versionOf(payload), payload });
        read?.set(String(p.id), p.payload ?? {});
      }
      next = page.next;
      if (next === undefined || page.points.length === 0) return { rows, next: undefined };
    }
  }

  private pinnedBelowFilter(target: number): QFilter {
    return { must: [...this.pinned(), below(target)] };
  }

  /** Qdrant keeps no index in short_id order a sweep could fill in order, so ids are minted at random. */
  async scanPinned(target: number, budget: BatchBudget, visit: (row: VersionedRow, ctx: StepContext) => void): Promise<void> {
    let offset: Offset;
    do {
      const batch = await this.readBatch(this.pinnedBelowFilter(target), budget, offset);
      for (const row of batch.rows) visit(row, RANDOM_MINT);
      offset = batch.next;
    } while (offset !== undefined);
  }

  async rewritePass(source: PassSource, budget: BatchBudget, version: number, rewrite: RowRewrite): Promise<WriteOutcome[]> {
    const filter = "pinnedBelow" in source ? this.pinnedBelowFilter(source.pinnedBelow) : { must: [above(source.above)] };
    const read = new Map<string, Payload>();
    const { rows } = await this.readBatch(filter, budget, undefined, read);
    // Every rewrite runs before the first write, so one that throws writes nothing of the batch.
    const writes: { id: string; read: unknown; payload: Payload }[] = [];
    for (const row of rows) {
      const next = rewrite(row);
      if (next === undefined) break;
      const payload = encodePayload(next as unknown as MemoryRecord, version);
      const trail = trailOver(read.get(row.id));
      if (trail.length > 0) payload[DERIVED_KEYS.revisionTrail] = trail;
      writes.push({ id: row.id, read: row.payload.revision, payload });
    }
    if (writes.length === 0) return [];
    const now = Date.now();
    let failure: Error | undefined;
    try {
      await this.call("write", () =>
        this.client.batchUpdate(this.alias, {
          wait: true,
          ordering: "strong",
          operations: writes.map((w) => ({
            overwrite_payload: { payload: w.payload, filter: { must: [{ has_id: [w.id] }, revisionIs(w.read), unclaimed(now)] } },
          })),
        }),
      );
    } catch (err) {
      // Qdrant applies a batch in order and stops at a failure: the read-back says which rows landed.
      failure = err instanceof Error ? err : new Error(String(err));
    }
    let stored: Map<string, Payload>;
    try {
      stored = await this.revisions(writes.map((w) => w.id));
    } catch (err) {
      throw failure ?? err;
    }
    const outcomes: WriteOutcome[] = [];
    for (const w of writes) {
      if (!stored.has(w.id)) outcomes.push("gone");
      else if (landedIn(stored.get(w.id), w.payload.revision as string)) outcomes.push("ok");
      else if (failure) outcomes.push(failure);
      // Otherwise another writer changed the row after it was read: its write stands and the row stays in the backlog.
    }
    return outcomes;
  }

  /** The stored revision and trail of each id that still exists. */
  private async revisions(ids: readonly string[]): Promise<Map<string, Payload>> {
    const out = new Map<string, Payload>();
    for (let i = 0; i < ids.length; i += MAX_PAGE) {
      const part = ids.slice(i, i + MAX_PAGE);
      const points = (await this.call("read", () =>
        this.client.retrieve(this.alias, { ids: part, with_payload: ["revision", DERIVED_KEYS.revisionTrail], with_vector: false }),
      )) as Point[];
      for (const p of points) out.set(String(p.id), p.payload ?? {});
    }
    return out;
  }

  /**
   * A snapshot of the physical collection behind the alias, made before a
   * migration writes (`engram migrate --apply`). Resolves once Qdrant has
   * written it (wait=true) with the collection's and the snapshot's names.
   */
  async snapshot(): Promise<{ collection: string; snapshot: string }> {
    const { aliases } = await this.call("read", () => this.client.getAliases());
    const collection = aliases.find((a) => a.alias_name === this.alias)?.collection_name ?? this.alias;
    const made = await this.call("write", () => this.client.createSnapshot(collection, { wait: true }));
    if (!made?.name) throw new Error("Qdrant answered the snapshot request without a snapshot name");
    return { collection, snapshot: made.name };
  }
}
