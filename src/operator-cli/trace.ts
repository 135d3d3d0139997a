import type { Command } from "commander";
import { EXIT } from "../argerror/index.js";
import { traced, type SpanNotes } from "../model/trace-hook.js";
import { failure } from "./common.js";

/** The verb being run, as its words (`prune-expired`, `spine-review purge`), noted before its action starts. */
let verb = "operator";
let depth = 0;

const OPERATOR_EXPORT_TIMEOUT_MS = 2_000;

/** Called before every action (program.ts), so a sweep's span can be named after its verb. */
export function noteVerb(cmd: Command): void {
  const words: string[] = [];
  for (let c: Command | null = cmd; c !== null && c.parent !== null; c = c.parent) words.unshift(c.name());
  verb = words.join(" ") || "operator";
}

/** The counts and flags of a verb's report: its top-level numbers and booleans, never a string from the store. */
function noteCounts(report: unknown, notes: SpanNotes): void {
  if (typeof report !== "object" || report === null) return;
  for (const [key, value] of Object.entries(report)) {
    if (typeof value === "number" || typeof value === "boolean") notes.set(`engram.operator.${key}`, value);
  }
}

/**
 * Runs an operator verb's work on its store as one span, `engram <verb>`,
 * when the OTEL_* settings turn tracing on, with the report's counts; the
 * spans are sent before the verb returns. With tracing off this only runs
 * `fn`. A setting tracing cannot honour is a usage error, as on `serve`.
 */
export async function operatorSweep<T>(env: NodeJS.ProcessEnv, fn: () => Promise<T>): Promise<T> {
  if (depth > 0) return fn();
  const { startTracing } = await import("../app.js");
  let tracing: Awaited<ReturnType<typeof startTracing>>;
  try {
    // A verb waits for its spans before it exits, so a collector that is down may hold it back this long at most.
    tracing = await startTracing(env, { info() {}, warn() {}, error() {} }, { exportTimeoutMs: OPERATOR_EXPORT_TIMEOUT_MS });
  } catch (err) {
    throw failure(EXIT.usage, err instanceof Error ? err.message : String(err));
  }
  depth++;
  try {
    return await traced(
      `engram ${verb}`,
      async (notes) => {
        const report = await fn();
        noteCounts(report, notes);
        return report;
      },
      { root: true, attributes: { "engram.operator.verb": verb } },
    );
  } finally {
    depth--;
    await tracing?.shutdown();
  }
}
