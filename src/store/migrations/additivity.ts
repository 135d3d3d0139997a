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
  if (additiveInOrder(step, before, after)) return;
  // for-in over plain JSON objects, and identity first: most values are shared with the input.
  for (const k in before) {
    if (!(k in after)) throw new AdditivityError(`step ${step.from}->${step.to} removed key ${k}`);
    const was = before[k];
    const now = after[k];
    if (was !== now && rewroteKey(step, k, was, now)) throw new AdditivityError(`step ${step.from}->${step.to} rewrote key ${k}`);
  }
  for (const k in after) {
    if (!(k in before) && !step.addedKeys.includes(k)) throw new AdditivityError(`step ${step.from}->${step.to} added undeclared key ${k}`);
  }
}

/** The mirror check for an inverse: it may only remove what its step added. */
export function checkSubtractive(step: MigrationStep, before: Payload, after: Payload): void {
  if (subtractiveInOrder(step, before, after)) return;
  for (const k in after) {
    if (!(k in before)) throw new AdditivityError(`inverse of ${step.from}->${step.to} added key ${k}`);
    if (before[k] !== after[k] && !sameJson(before[k], after[k])) throw new AdditivityError(`inverse of ${step.from}->${step.to} rewrote key ${k}`);
  }
  for (const k in before) {
    if (!(k in after) && !step.addedKeys.includes(k)) throw new AdditivityError(`inverse of ${step.from}->${step.to} removed undeclared key ${k}`);
  }
}

/*
 * A step's output is almost always a copy of its input with keys added at
 * the end (a spread, Object.assign) or some left out, so its keys are the
 * input's in the same order. Then the two key lists are walked side by side
 * and the values compared by position, from Object.keys and Object.values:
 * a per-key lookup into each of two differently shaped objects, as the
 * general checks below do, costs several times the step itself. These
 * return false, having decided nothing, when the keys are not in that
 * order, and the general check then runs; when they return true or throw,
 * the general check would have said the same.
 */

function rewroteKey(step: MigrationStep, k: string, was: unknown, now: unknown): boolean {
  // A declared key that holds nothing yet (absent, null, "") may be filled.
  const fillable = (was === null || was === "") && step.addedKeys.includes(k);
  return !fillable && !sameJson(was, now);
}

function additiveInOrder(step: MigrationStep, before: Payload, after: Payload): boolean {
  const bk = Object.keys(before);
  const ak = Object.keys(after);
  const n = bk.length;
  if (ak.length < n) return false;
  for (let i = 0; i < n; i++) if (bk[i] !== ak[i]) return false;
  const bv = Object.values(before);
  const av = Object.values(after);
  for (let i = 0; i < n; i++) {
    if (bv[i] !== av[i] && rewroteKey(step, bk[i]!, bv[i], av[i])) throw new AdditivityError(`step ${step.from}->${step.to} rewrote key ${bk[i]}`);
  }
  for (let i = n; i < ak.length; i++) {
    if (!step.addedKeys.includes(ak[i]!)) throw new AdditivityError(`step ${step.from}->${step.to} added undeclared key ${ak[i]}`);
  }
  return true;
}

function subtractiveInOrder(step: MigrationStep, before: Payload, after: Payload): boolean {
  const bk = Object.keys(before);
  const ak = Object.keys(after);
  // Which of before's keys after kept, in order; anything else is for the general check.
  let j = 0;
  for (let i = 0; i < bk.length; i++) if (j < ak.length && bk[i] === ak[j]) j++;
  if (j !== ak.length) return false;
  const bv = Object.values(before);
  const av = Object.values(after);
  // Rewritten kept keys first, then removed ones, as the general check reports them.
  j = 0;
  for (let i = 0; i < bk.length; i++) {
    if (j < ak.length && bk[i] === ak[j]) {
      if (bv[i] !== av[j] && !sameJson(bv[i], av[j])) throw new AdditivityError(`inverse of ${step.from}->${step.to} rewrote key ${bk[i]}`);
      j++;
    }
  }
  j = 0;
  for (let i = 0; i < bk.length; i++) {
    if (j < ak.length && bk[i] === ak[j]) j++;
    else if (!step.addedKeys.includes(bk[i]!)) throw new AdditivityError(`inverse of ${step.from}->${step.to} removed undeclared key ${bk[i]}`);
  }
  return true;
}
