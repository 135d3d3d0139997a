/**
 * What both halves of the command line share: src/cli (the client, which
 * registers the operator verbs) and src/operator-cli (the verbs that open the
 * store themselves). It sits below both and imports neither, so the command
 * line's layering runs one way: src/cli may import src/operator-cli, never
 * the reverse.
 */
export { completesTo, listValues } from "./completion-values.js";
export { parseDurationMs } from "./duration.js";
export { CliFailure, cliLine, cliLines, oneLine, usageError } from "./failure.js";
export { declaredExpectation, expecting } from "./flag-expectation.js";
export { collectEntries, collectList, parseUint } from "./list-values.js";
export type { OutputMode } from "./output-mode.js";
export { ProgressReporter, progressFor, progressMode, type ProgressMode } from "./progress.js";
export { pad, table } from "./table.js";
export { writeDocument } from "./write-document.js";
