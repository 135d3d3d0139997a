/**
 * The schema version every ordinary write stamps. Raising it is the job of
 * the migration registry (src/store/migrations), which must hold a step that
 * reaches it.
 */
export const CURRENT_SCHEMA_VERSION = 1;
