import { idempotencyConflict, writeContended } from "../argerror/index.js";
import { RevisionConflictError } from "../store/index.js";
import { embeddingText } from "../embed/embedder.js";
import { identityKey } from "../embed/embedder.js";
import type { StoreArgs } from "./args.js";
import { WRITE_ATTEMPTS } from "./conditional-write.js";
import type { CoreDeps } from "./deps.js";
import { contentFingerprint, idempotentPointId } from "./idempotency.js";
import type { MemoryRecord } from "../model/record.js";
import { mintShortId } from "../model/short-id.js";
import type { Subject } from "../model/subject.js";
import { softWords } from "./rank-soft.js";
import { wordVectorsOf } from "./word-vectors.js";
import { embedDocuments } from "./embed-traced.js";

export type WriteResult = { id: string; short_id: string };

/**
 * Looks up a keyed write before any embedding: a matching fingerprint
 * replays the original result with no side effects, a different one is a
 * conflict. Returns the point id to create at when the key is new.
 */
export async function checkIdempotency(
  deps: CoreDeps,
  subject: Subject,
  a: StoreArgs,
  extra: readonly string[] = [],
): Promise<{ replay: WriteResult } | { pointId: string; fingerprint: string } | undefined> {
  if (!a.idempotency_key) return undefined;
  const pointId = idempotentPointId(subject.owner, a.scope ?? "", a.idempotency_key);
  const fingerprint = contentFingerprint(a, extra);
  const existing = await deps.store.getRaw(pointId);
  if (!existing) return { pointId, fingerprint };
  if (existing.idempotency_fingerprint === fingerprint) return { replay: { id: existing.id, short_id: existing.short_id } };
  throw idempotencyConflict();
}

/** The record's vector, stamping the identity of the embedder that made it. */
export async function embedRecord(deps: CoreDeps, rec: MemoryRecord): Promise<Float32Array> {
  const [vector] = await embedRecords(deps, [rec]);
  return vector!;
}

/**
 * One embedder call for several records (one job on the worker pool),
 * stamping each; their words are offered to the word vectors kept.
 */
export async function embedRecords(deps: CoreDeps, recs: readonly MemoryRecord[]): Promise<Float32Array[]> {
  const texts = recs.map((r) => embeddingText(r.content, r.tags));
  const vectors = await embedDocuments(deps.embedder, texts);
  wordVectorsOf(deps.embedder).offer(recs.flatMap(softWords));
  const identity = identityKey(deps.embedder.identity);
  for (const r of recs) r.embedder_identity = identity;
  return vectors;
}

/**
 * Inserts a new record, never overwriting. When its id is taken, the only
 * way that happens is a keyed create that raced another with the same key
 * (or its own retry): the same fingerprint replays what persisted, another
 * is a conflict. An id taken and freed again before the read is tried
 * again. An unkeyed create whose id is taken (a discovery creating at a
 * caller's fresh id that someone else just took) raises a revision
 * conflict, which the caller's retry resolves by reading again.
 */
export async function createRecord(deps: CoreDeps, rec: MemoryRecord, vector: Float32Array): Promise<WriteResult> {
  if (!rec.short_id) rec.short_id = await mintShortId((c) => deps.store.countShortId(c));
  for (let i = 0; i < WRITE_ATTEMPTS; i++) {
    if (await deps.store.create(rec, vector)) {
      deps.onCreated?.(rec);
      return { id: rec.id, short_id: rec.short_id };
    }
    const persisted = await deps.store.getRaw(rec.id);
    // Taken, then deleted before the read: the id is free again.
    if (!persisted) continue;
    if (!rec.idempotency_fingerprint) throw new RevisionConflictError(rec.id, false);
    if (persisted.idempotency_fingerprint === rec.idempotency_fingerprint) return { id: persisted.id, short_id: persisted.short_id };
    throw idempotencyConflict();
  }
  throw writeContended([rec.id]);
}

/** Embed first (a failed embed never touches the store), then mint, then create. */
export async function embedAndCreate(deps: CoreDeps, rec: MemoryRecord): Promise<WriteResult> {
  const vector = await embedRecord(deps, rec);
  return createRecord(deps, rec, vector);
}
