import type { StoreArgs } from "./args.js";
import type { CoreDeps } from "./deps.js";
import { newRecord } from "./new-record.js";
import type { MemoryRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";
import { validateStoreArgs } from "./validate.js";
import { checkIdempotency, embedAndCreate, type WriteResult } from "./write-record.js";

/** A store past its checks: the replay of a keyed write already made, or the record to embed and create. */
export type PreparedStore = { replay: WriteResult } | { record: MemoryRecord };

/**
 * Everything a single write does before embedding, in its order: validation,
 * then the idempotency lookup, then the new record. A batch runs it
 * for each record, so a record is refused in the same words either way.
 */
export async function prepareStore(deps: CoreDeps, subject: Subject, a: StoreArgs): Promise<PreparedStore> {
  validateStoreArgs(a, deps.limits, "store");
  const keyed = await checkIdempotency(deps, subject, a);
  if (keyed && "replay" in keyed) return { replay: keyed.replay };
  const record = newRecord(a, subject, deps.now());
  if (keyed) {
    record.id = keyed.pointId;
    record.idempotency_fingerprint = keyed.fingerprint;
  }
  return { record };
}

export async function storeMemory(deps: CoreDeps, subject: Subject, a: StoreArgs): Promise<WriteResult> {
  const prepared = await prepareStore(deps, subject, a);
  return "replay" in prepared ? prepared.replay : embedAndCreate(deps, prepared.record);
}
