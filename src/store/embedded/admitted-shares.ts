import type { RecordQuery } from "../store.js";
import type { ShareCell } from "./vector/share-probe.js";

/** Filters whose share is kept at once; past this the memo starts over. */
const MAX_FILTERS = 64;

/** How long a share is kept at most: a record's window opening or closing changes what a filter admits without any write. */
const MAX_AGE_MS = 60_000;

/**
 * The share of records each search filter admits, as the vector index last
 * probed it, kept until the mirror changes. A search over the whole store
 * (cross-spine) otherwise asked its filter about 512 records spread over
 * memory before every graph walk, a third of what the walk itself costs.
 * Keyed by everything the filter reads except the clock.
 */
export class AdmittedShares {
  private readonly cells = new Map<string, ShareCell>();
  private generation = -1;
  private since = 0;

  /** The cell of the filter `query` stands for, empty when nothing is known of it at this mirror generation. */
  cellFor(query: RecordQuery, generation: number, now = Date.now()): ShareCell {
    if (generation !== this.generation || now - this.since > MAX_AGE_MS || this.cells.size >= MAX_FILTERS) {
      this.cells.clear();
      this.generation = generation;
      this.since = now;
    }
    const key = JSON.stringify(query, (name, value: unknown) => (name === "now" ? undefined : value));
    let cell = this.cells.get(key);
    if (cell === undefined) this.cells.set(key, (cell = {}));
    return cell;
  }
}
