/**
 * The pieces the MCP answers of the operation table are made of: compact
 * rows, coverage keys, batch rows and stored ids, each said one way for
 * every tool that answers with it.
 */
import { outcomeSummary, type ArchiveRow } from "./archive.js";
import type { Coverage } from "./coverage.js";
import type { ToolAnswer, ToolLane } from "./operation-row.js";
import type { StoreOutcome } from "./store-memories.js";
import { recallRow, type MemoryView } from "./view.js";

/** Compact rows reach agents as the recall view; full records go as they are. */
export function rows(list: readonly MemoryView[], full: boolean | undefined): (MemoryView | Partial<MemoryView>)[] {
  return full ? [...list] : list.map(recallRow);
}

/** Coverage keys appear only on cross-spine reads; a scoped read carries none. */
export function coverageKeys(c: Coverage | undefined): Partial<Coverage> {
  return c ?? {};
}

/** A batch row as MCP shows it: a not_found row has no id at all rather than an empty one. */
export function batchRows(list: readonly ArchiveRow[]) {
  return list.map((r) => (r.id === "" ? { requested: r.requested, outcome: r.outcome } : { ...r }));
}

/** A batch of flips answered one outcome per id: the counts as the line, the rows as the result. */
export function batchAnswer(list: readonly ArchiveRow[]): ToolAnswer {
  return { text: outcomeSummary(list), structured: { results: batchRows(list) } };
}

/** A batch's outcomes: {id, short_id}, or the error the record's own call would have answered. */
export function storeRows(outcomes: readonly StoreOutcome[], lane: ToolLane) {
  return outcomes.map((o) => ("stored" in o ? { id: o.stored.id, short_id: o.stored.short_id } : { error: lane.refusal(o.refused) }));
}

/** A write answered by the id it wrote, after the line that says what it did. */
export function idAnswer(text: string, r: { id: string; short_id: string }): ToolAnswer {
  return { text, structured: { id: r.id, short_id: r.short_id } };
}
