import { describe, expect, it } from "vitest";
import { COUNTS_MAX_ENTRIES, countsKept, termCounts } from "../src/core/term-counts.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

describe("a record's term counts, kept across searches", () => {
  it("are reused when the same record comes back as a new object with the same text", () => {
    const first = termCounts({ ...syntheticRecord(1), content: "billing moved to CockroachDB" });
    const again = termCounts({ ...syntheticRecord(1), content: "billing moved to CockroachDB" });
    expect(again).toBe(first);
    expect(again.tf.get("bill")).toBe(1);
  });

  it("are counted afresh once the record's content, summary or tags change", () => {
    const before = termCounts({ ...syntheticRecord(2), content: "billing moved to CockroachDB" });
    const edited = termCounts({ ...syntheticRecord(2), content: "invoices moved to Postgres" });
    expect(edited).not.toBe(before);
    expect(edited.tf.has("bill")).toBe(false);
    expect(edited.tf.get("invoic")).toBe(1);
    const tagged = termCounts({ ...syntheticRecord(2), content: "invoices moved to Postgres", tags: ["billing"] });
    expect(tagged.tf.get("bill")).toBe(1);
    const summarized = termCounts({ ...syntheticRecord(2), content: "invoices moved to Postgres", tags: ["billing"], summary: "ledger" });
    expect(summarized.tf.get("ledger")).toBe(1);
  });

  it("hold no more records than their bound, however many are searched", () => {
    for (let i = 0; i < COUNTS_MAX_ENTRIES + 100; i++) termCounts({ ...syntheticRecord(10_000 + i), content: `record number ${i}` });
    expect(countsKept()).toBeLessThanOrEqual(COUNTS_MAX_ENTRIES);
    expect(countsKept()).toBeGreaterThan(COUNTS_MAX_ENTRIES / 2);
  });
});
