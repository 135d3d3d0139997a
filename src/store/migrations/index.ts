export type { MigrationStep, Payload, Reversibility, StepContext } from "./step.js";
export { irreversible, inverse, RANDOM_MINT } from "./step.js";
export { STEPS, LATEST_VERSION, validateRegistry, stepsFrom, deriveCurrentKeys, RegistryError } from "./registry.js";
export { checkAdditive, checkSubtractive, AdditivityError } from "./additivity.js";
export { refusalError, reversible } from "./refusal.js";
export type { RevertPlan, IrreversibleStep, UnsupportedVersion } from "./refusal.js";
export type { MigrationStore, VersionedRow, WriteOutcome, BatchBudget, PassSource, RowRewrite } from "./migration-store.js";
export { migrate, revert, previewRevert, forwardVisitor, backwardVisitor, MigrationStalledError, RevertRefusedError, DEFAULT_BATCH, DEFAULT_BATCH_BYTES } from "./runner.js";
export type { MigrateReport, RevertReport, Progress } from "./runner.js";
