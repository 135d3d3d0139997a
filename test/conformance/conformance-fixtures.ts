/** The clock and the subjects every conformance case shares. */
import { ownerSubject, type Subject } from "../../src/model/subject.js";
import { GATE_ON, type RecordQuery } from "../../src/store/store.js";

export const NOW = new Date("2026-06-01T12:00:00.000Z");
export const NOW_S = Math.floor(NOW.getTime() / 1000);
export const ALICE = ownerSubject("alice");
export const BOB = ownerSubject("bob");

export function query(subject: Subject, extra: Partial<RecordQuery> = {}): RecordQuery {
  return { subject, gate: GATE_ON, now: NOW_S, ...extra };
}
