import { writeContended } from "../argerror/index.js";
import { RevisionConflictError } from "../store/index.js";

/**
 * Read-validate-write attempts per request. A conflict means another writer
 * landed between this attempt's read and its write; each attempt starts
 * from a fresh read, so one losing attempt costs one read and one write.
 */
export const WRITE_ATTEMPTS = 8;

/**
 * Runs `attempt` (read the record, check it, build the next one, replace it
 * conditionally) until one lands. Every attempt re-reads, so a record
 * deleted meanwhile turns into the attempt's own not found and a record
 * that changed is re-validated as it now is. After WRITE_ATTEMPTS lost
 * races: the write_contended sentinel, with nothing written.
 */
export async function withConflictRetry<T>(inputs: readonly string[], attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof RevisionConflictError)) throw err;
      if (i >= WRITE_ATTEMPTS) throw writeContended(inputs);
    }
  }
}
