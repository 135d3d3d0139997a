import { LATEST_VERSION } from "./migrations/registry.js";

/**
 * The schema version every ordinary write stamps: the end of the migration
 * registry's chain, so a new step raises it and the codec follows.
 */
export const CURRENT_SCHEMA_VERSION = LATEST_VERSION;
