export type { MemoryRecord, Citation, ScoredRecord } from "./record.js";
export { SERVER_ONLY_KEYS, VISIBILITIES } from "./record.js";
export type { Subject } from "./subject.js";
export { ANONYMOUS, ownerSubject } from "./subject.js";
export { randomShortId, mintShortId, ShortIdExhaustedError, SHORT_ID_LENGTH, SHORT_ID_ATTEMPTS } from "./short-id.js";
export type { Logger, LogFields } from "./logger.js";
export { silentLogger } from "./logger.js";
export { lexicalTerms, distinctTerms, searchableText } from "./lexical-terms.js";
export { MAX_TIMER_MS, MAX_TIMER_HOURS } from "./timer-limit.js";
