import type { ScheduleArgs } from "./args.js";
import { nowSeconds, type CoreDeps } from "./deps.js";
import { newRecord } from "./new-record.js";
import { parseWindow } from "./schedule-window.js";
import type { Subject } from "../model/subject.js";
import { validateStoreArgs } from "./validate.js";
import { checkIdempotency, embedAndCreate, type WriteResult } from "./write-record.js";

/**
 * A record with a recall window. The idempotency replay runs before the
 * window checks, so a delayed retry of a call that succeeded still replays
 * even once its not_after has passed.
 */
export async function scheduleMemory(deps: CoreDeps, subject: Subject, a: ScheduleArgs): Promise<WriteResult> {
  validateStoreArgs(a, deps.limits, "schedule");
  const keyed = await checkIdempotency(deps, subject, a);
  if (keyed && "replay" in keyed) return keyed.replay;
  const window = parseWindow(a, nowSeconds(deps));
  const rec = newRecord(a, subject, deps.now(), window);
  if (keyed) {
    rec.id = keyed.pointId;
    rec.idempotency_fingerprint = keyed.fingerprint;
  }
  return embedAndCreate(deps, rec);
}
