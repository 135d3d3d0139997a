import type { VerbTable } from "./operation-verb.js";
import { CURATION_VERBS } from "./verbs-curation.js";
import { READ_VERBS } from "./verbs-read.js";
import { RECALL_VERBS } from "./verbs-recall.js";
import { WRITE_VERBS } from "./verbs-write.js";

/** Every verb that calls an operation, in the order help and the catalog list them; a row's verb left out fails to compile. */
export const OPERATION_VERBS: VerbTable = { ...RECALL_VERBS, ...READ_VERBS, ...WRITE_VERBS, ...CURATION_VERBS };
