/**
 * The operator verbs' CLI half: the commands that open the store themselves
 * (migrate, backfill, export, import, backup, reindex, remap-owner,
 * summarize-missing, prune-expired, end-sessions, spine-review) rather than
 * dial a server. src/cli, the client, registers them; the flag, failure,
 * text and progress helpers both share are src/cli-kit's, and the work
 * itself is src/operator's. Nothing here imports src/cli.
 */
export { registerOperatorBackfill } from "./backfill.js";
export { guardBackupTarget } from "./backup.js";
export { SCHEMA_SWEEP_BATCH_SIZE } from "./common.js";
export { BACKUP_ON_QDRANT, registerOperatorData } from "./data.js";
export { registerOperatorMigrate, revertText } from "./migrate.js";
export { registerOperatorPrune } from "./prune.js";
export { registerOperatorReindex } from "./reindex.js";
export { MAX_OWNER_BYTES, registerOperatorRemapOwner } from "./remap-owner.js";
export { registerOperatorSessions } from "./sessions.js";
export { registerOperatorSpineReview, type FlipDocument } from "./spine-review.js";
export { noStoreLine, qdrantFailure, SWEEP_CHECK, withOperatorStore, withServingStore } from "./store.js";
export { NO_SUMMARY_MODEL, registerOperatorSummarize } from "./summarize.js";
export { noteVerb } from "./trace.js";
