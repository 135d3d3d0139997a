import { sameJson } from "./json-value.js";
import type { MigrationStep, Payload } from "./step.js";

export class AdditivityError extends Error {
  override readonly name = "AdditivityError";
}

/**
 * A forward step may only add its declared keys: nothing removed, nothing
 * rewritten, nothing undeclared. Checked before any write.
 */
export function checkAdditive(step: MigrationStep, before: Payload, after: Payload): void {
  // for-in over plain JSON objects, and identity first: most values are shared with the input.
  for (const k in before) {
    if (!(k in after)) throw new AdditivityError(`step ${step.from}->${step.to} removed key ${k}`);
    const was = before[k];
    const now = after[k];
    if (was === now) continue;
    // A declared key that holds nothing yet (absent, null, "") may be filled.
    const fillable = (was === null || was === "") && step.addedKeys.includes(k);
    if (!fillable && !sameJson(was, now)) throw new AdditivityError(`step ${step.from}->${step.to} rewrote key ${k}`);
  }
  for (const k in after) {
    if (!(k in before) && !step.addedKeys.includes(k)) throw new AdditivityError(`step ${step.from}->${step.to} added undeclared key ${k}`);
  }
}

/** The mirror check for an inverse: it may only remove what its step added. */
export function checkSubtractive(step: MigrationStep, before: Payload, after: Payload): void {
  for (const k in after) {
    if (!(k in before)) throw new AdditivityError(`inverse of ${step.from}->${step.to} added key ${k}`);
    if (before[k] !== after[k] && !sameJson(before[k], after[k])) throw new AdditivityError(`inverse of ${step.from}->${step.to} rewrote key ${k}`);
  }
  for (const k in before) {
    if (!(k in after) && !step.addedKeys.includes(k)) throw new AdditivityError(`inverse of ${step.from}->${step.to} removed undeclared key ${k}`);
  }
}
