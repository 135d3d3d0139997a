import { ambiguousShortId, argError, notFound } from "../argerror/index.js";
import { byteLength } from "./bytes.js";
import type { MemoryRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";
import type { CoreDeps } from "./deps.js";
import { CONTROL_CHARACTERS } from "../model/control-characters.js";

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

/** True when `input` holds a character no UUID or short id has (a control character, see CONTROL_CHARACTERS). */
export function holdsNonIdCharacter(input: string): boolean {
  return CONTROL_CHARACTERS.test(input);
}

/**
 * An id input is checked before any lookup, because the not-found sentinel
 * repeats it as sent: bounded, so that echo stays short, and free of
 * control characters, so it stays one line and can never carry a second,
 * forged message (an envelope on a line of its own, say). The refusal names
 * the field and never the value.
 */
export function checkIdInput(deps: CoreDeps, input: string): void {
  const n = byteLength(input);
  const max = deps.limits.maxIdBytes;
  if (n > max) throw argError("id", "too_long", `id too large: ${n} bytes (max ${max})`, { max, got: n });
  if (holdsNonIdCharacter(input)) throw argError("id", "format", "id must not contain control characters or line breaks");
}

export async function resolveId(deps: CoreDeps, input: string): Promise<string> {
  checkIdInput(deps, input);
  const r = await deps.store.resolve(input);
  if (r.kind === "not_found") throw notFound([input]);
  if (r.kind === "ambiguous") throw ambiguousShortId(input);
  return r.id;
}
