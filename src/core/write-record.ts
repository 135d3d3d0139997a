import { idempotencyConflict } from "../argerror/index.js";
import { embeddingText } from "../embed/embedder.js";
import { identityKey } from "../embed/embedder.js";
import type { StoreArgs } from "./args.js";
import type { CoreDeps } from "./deps.js";
import { contentFingerprint, idempotentPointId } from "./idempotency.js";
import type { MemoryRecord } from "../model/record.js";
import { mintShortId } from "../model/short-id.js";
import type { Subject } from "../model/subject.js";

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

/** Embed first (a failed embed never touches the store), then mint, then write. */
export async function embedAndPut(deps: CoreDeps, rec: MemoryRecord): Promise<WriteResult> {
  const [vector] = await deps.embedder.embedDocuments([embeddingText(rec.content, rec.tags)]);
  if (!rec.short_id) rec.short_id = await mintShortId((c) => deps.store.countShortId(c));
  rec.embedder_identity = identityKey(deps.embedder.identity);
  await deps.store.put(rec, vector!);
  if (rec.idempotency_fingerprint) {
    // A concurrent racer with the same key may have landed first: report what persisted.
    const persisted = await deps.store.getRaw(rec.id);
    if (persisted) return { id: persisted.id, short_id: persisted.short_id };
  }
  return { id: rec.id, short_id: rec.short_id };
}
