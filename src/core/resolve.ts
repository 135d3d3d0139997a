import { ambiguousShortId, argError, notFound } from "../argerror/index.js";
import { byteLength } from "./bytes.js";
import type { MemoryRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";
import type { CoreDeps } from "./deps.js";

/**
 * Input → readable or owned record. Missing, not readable and not owned are
 * the same `not found: <input as sent>`, so nobody learns another owner's ids.
 */
export async function resolveReadable(deps: CoreDeps, subject: Subject, input: string): Promise<MemoryRecord> {
  const id = await resolveId(deps, input);
  const rec = await deps.store.getReadable(id, subject);
  if (!rec) throw notFound([input]);
  return rec;
}

export async function resolveOwned(deps: CoreDeps, subject: Subject, input: string): Promise<MemoryRecord> {
  const id = await resolveId(deps, input);
  const rec = await deps.store.getOwned(id, subject);
  if (!rec) throw notFound([input]);
  return rec;
}

/**
 * An id input is bounded before any lookup: the not-found sentinel repeats
 * the input as sent, and that echo must stay short.
 */
export function checkIdBytes(deps: CoreDeps, input: string): void {
  const n = byteLength(input);
  const max = deps.limits.maxIdBytes;
  if (n > max) throw argError("id", "too_long", `id too large: ${n} bytes (max ${max})`, { max, got: n });
}

export async function resolveId(deps: CoreDeps, input: string): Promise<string> {
  checkIdBytes(deps, input);
  const r = await deps.store.resolve(input);
  if (r.kind === "not_found") throw notFound([input]);
  if (r.kind === "ambiguous") throw ambiguousShortId(input);
  return r.id;
}
