import { DERIVED_KEYS } from "./layout.js";
import type { QCondition } from "./record-query-filter.js";

/** Conditions of the store's conditional writes: a stored revision, an unclaimed point. */
export const match = (key: string, value: string): QCondition => ({ key, match: { value } });
export const empty = (key: string): QCondition => ({ is_empty: { key } });
export const revisionIs = (rev: string | undefined): QCondition => (rev === undefined ? empty("revision") : match("revision", rev));
export const unclaimed = (now: number): QCondition => ({ should: [empty(DERIVED_KEYS.claimUntil), { key: DERIVED_KEYS.claimUntil, range: { lt: now } }] });
export const CLAIM_KEYS = [DERIVED_KEYS.claimBy, DERIVED_KEYS.claimUntil];
