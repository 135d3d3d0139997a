import { argError, exceedsMaximum } from "../argerror/index.js";
import type { MemoryRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";
import type { StoreArgs, StoreBatchArgs } from "./args.js";
import type { CoreDeps } from "./deps.js";
import type { Limits } from "./limits.js";
import { recordArguments } from "./store-kinds.js";
import { prepareStore } from "./store-memory.js";
import { createRecord, embedRecords, type WriteResult } from "./write-record.js";

/** One record's outcome, in request order: stored (or replayed), or refused with what its own write would have thrown. */
export type StoreOutcome = { stored: WriteResult } | { refused: unknown };

/**
 * Records per embedder call: one job on the worker pool. Measured with the
 * local model on short records (bench/rows/bulk-ingestion.ts, jobs of 1 to
 * 64 texts): jobs of 32 ran 1.25-1.33 times jobs of one and as fast as jobs
 * of 64, so the chunk stops at 32 for what else it bounds: one job stays
 * well under a second of a worker's time, so one-at-a-time stores queued
 * behind a batch wait little, and a batch's writes overlap its next chunk.
 */
export const EMBED_CHUNK = 32;

/** The records a batch refuses as a whole: none, or more than the cap. */
function checkRecordBatch(memories: readonly Record<string, unknown>[] | undefined, limits: Limits): readonly Record<string, unknown>[] {
  if (!memories || memories.length === 0) throw argError("memories", "required", "memories is required");
  if (memories.length > limits.maxBatchRecords) throw exceedsMaximum("memories", limits.maxBatchRecords);
  return memories;
}

const UNDECODED = Symbol("undecoded record");

/**
 * A record its lane could not decode (an unknown key or a wrongly typed
 * field in Connect's JSON), carrying the refusal its own write gives for it
 * alone: it keeps its place in the batch, refused in order like any other.
 */
export function undecodedRecord(refusal: unknown): Record<string, unknown> {
  return { [UNDECODED]: refusal };
}

/**
 * One record's arguments; on Connect every record already has exactly
 * these fields, so only a lane forwarding caller JSON (MCP) is refused here.
 */
function recordArgs(raw: Record<string, unknown>): StoreArgs {
  if (UNDECODED in raw) throw (raw as { [UNDECODED]: unknown })[UNDECODED];
  return recordArguments(raw);
}

/** Lets requests that arrived meanwhile (a /healthz, another caller's read) run between two records. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The single write for many records. Each record goes through that write's own
 * checks and idempotency lookup (prepareStore), so it is refused in the same
 * words; a refused record does not refuse the others. The records that pass
 * are embedded EMBED_CHUNK at a time, one embedder call each (the next
 * chunk embedding while this one is written), and created one by one in
 * request order, each keyed record under its own key.
 *
 * With `stop_at_first_error`, nothing after the first refused record is
 * written and the outcomes end with its refusal.
 */
export async function storeMemories(deps: CoreDeps, subject: Subject, a: StoreBatchArgs): Promise<StoreOutcome[]> {
  const memories = checkRecordBatch(a.memories, deps.limits);
  const stop = a.stop_at_first_error === true;
  const outcomes: StoreOutcome[] = [];
  const toWrite: { at: number; record: MemoryRecord }[] = [];
  let end = memories.length;
  for (let at = 0; at < memories.length; at++) {
    try {
      const prepared = await prepareStore(deps, subject, recordArgs(memories[at]!));
      if ("replay" in prepared) outcomes[at] = { stored: prepared.replay };
      else toWrite.push({ at, record: prepared.record });
    } catch (refused) {
      outcomes[at] = { refused };
      if (stop) {
        end = at + 1;
        break;
      }
    }
  }

  // The next chunk embeds on the pool while this one is written.
  const embedChunk = (from: number): Promise<{ vectors: Float32Array[] } | { refused: unknown }> =>
    embedRecords(
      deps,
      toWrite.slice(from, from + EMBED_CHUNK).map((w) => w.record),
    ).then(
      (vectors) => ({ vectors }),
      (refused: unknown) => ({ refused }),
    );
  let next = toWrite.length > 0 ? embedChunk(0) : undefined;
  for (let i = 0; i < toWrite.length; i += EMBED_CHUNK) {
    const chunk = toWrite.slice(i, i + EMBED_CHUNK);
    const embedded = await next!;
    if ("refused" in embedded && stop) {
      // Nothing of this chunk was written: its first record is where the batch ends.
      outcomes[chunk[0]!.at] = { refused: embedded.refused };
      return outcomes.slice(0, chunk[0]!.at + 1);
    }
    next = i + EMBED_CHUNK < toWrite.length ? embedChunk(i + EMBED_CHUNK) : undefined;
    if ("refused" in embedded) {
      for (const w of chunk) outcomes[w.at] = { refused: embedded.refused };
      continue;
    }
    for (const [j, w] of chunk.entries()) {
      await yieldToLoop();
      try {
        outcomes[w.at] = { stored: await createRecord(deps, w.record, embedded.vectors[j]!) };
      } catch (refused) {
        outcomes[w.at] = { refused };
        if (stop) return outcomes.slice(0, w.at + 1);
      }
    }
  }
  return outcomes.slice(0, end);
}
