import type { StoreArgs } from "./args.js";
import type { CoreDeps } from "./deps.js";
import { newRecord } from "./new-record.js";
import type { Subject } from "../model/subject.js";
import { validateStoreArgs } from "./validate.js";
import { checkIdempotency, embedAndCreate, type WriteResult } from "./write-record.js";

export async function storeMemory(deps: CoreDeps, subject: Subject, a: StoreArgs): Promise<WriteResult> {
  validateStoreArgs(a, deps.limits, "store");
  const keyed = await checkIdempotency(deps, subject, a);
  if (keyed && "replay" in keyed) return keyed.replay;
  const rec = newRecord(a, subject, deps.now());
  if (keyed) {
    rec.id = keyed.pointId;
    rec.idempotency_fingerprint = keyed.fingerprint;
  }
  return embedAndCreate(deps, rec);
}
