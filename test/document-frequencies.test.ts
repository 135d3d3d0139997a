import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { MemoryRecord } from "../src/core/index.js";
import { DocumentFrequencies, FREQUENCIES_STALE_WRITES } from "../src/store/embedded/document-frequencies.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { StoreHandle } from "../src/store/embedded/handle.js";
import { Mirror } from "../src/store/embedded/mirror.js";
import { plainRecord } from "./helpers/synthetic-record.js";
import { seededVector } from "./helpers/synthetic-vectors.js";

const DIM = 16;
const rec = (i: number, content: string): MemoryRecord => plainRecord(i, { idHead: "30000000", shortPrefix: "F", content, scopes: 2 });

/** Ten records: "billing" in all, "ledger" in three, "invoice" in one. */
function store(): { dir: string; store: EmbeddedStore } {
  const dir = mkdtempSync(join(tmpdir(), "engram-df-"));
  const s = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  s.transaction(() => {
    for (let i = 0; i < 10; i++) s.writeRecord(rec(i, `billing ${i < 3 ? "ledger" : ""} ${i === 9 ? "invoice" : ""}`), seededVector(i, DIM));
  });
  return { dir, store: s };
}

function frequencies(dir: string): { df: DocumentFrequencies; mirror: Mirror; h: StoreHandle } {
  const h = new StoreHandle({ dataDir: dir, dim: DIM });
  const mirror = new Mirror(h);
  mirror.sync();
  return { df: new DocumentFrequencies(h, mirror), mirror, h };
}

describe("the document frequencies a store keeps in memory", () => {
  it("count the records holding each term, 0 for a term none holds", async () => {
    const { dir, store: s } = store();
    const { df, h } = frequencies(dir);
    expect(Object.fromEntries(df.of(["bill", "ledger", "invoic", "absent"]))).toEqual({ bill: 10, ledger: 3, invoic: 1, absent: 0 });
    h.db.close();
    await s.close();
  });

  it("are filled from the vocabulary with the terms more than one record holds, and count the same", async () => {
    const { dir, store: s } = store();
    const { df, h } = frequencies(dir);
    await df.fill();
    // "bill" and "ledger"; "invoic" (one holder) and the record numbers are looked up when asked.
    expect(df.size).toBe(2);
    expect(Object.fromEntries(df.of(["bill", "ledger", "invoic"]))).toEqual({ bill: 10, ledger: 3, invoic: 1 });
    h.db.close();
    await s.close();
  });

  it("find a term no record held when it was first asked for, once a record holds it", async () => {
    const { dir, store: s } = store();
    const { df, mirror, h } = frequencies(dir);
    await df.fill();
    expect(df.of(["receipt"]).get("receipt")).toBe(0);
    s.transaction(() => s.writeRecord(rec(10, "receipt"), seededVector(10, DIM)));
    mirror.sync();
    expect(df.of(["receipt"]).get("receipt")).toBe(1);
    h.db.close();
    await s.close();
  });

  it(`are read afresh once more than ${FREQUENCIES_STALE_WRITES} writes have passed, and filled again`, async () => {
    const { dir, store: s } = store();
    const { df, mirror, h } = frequencies(dir);
    await df.fill();
    expect(df.of(["ledger"]).get("ledger")).toBe(3);
    s.transaction(() => {
      for (let i = 10; i < 11 + FREQUENCIES_STALE_WRITES; i++) s.writeRecord(rec(i, `ledger ${i}`), seededVector(i, DIM));
    });
    mirror.sync();
    expect(df.of(["ledger"]).get("ledger")).toBe(3 + 1 + FREQUENCIES_STALE_WRITES);
    // The drop starts a fill again: "bill" is kept without being asked for.
    await df.fill();
    expect(df.size).toBe(2);
    h.db.close();
    await s.close();
  });

  it("are filled when a store warms up, so its first searches read no counts", async () => {
    const { dir, store: first } = store();
    await first.close();
    const s = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await s.warm();
    const kept = (s as unknown as { searcher: { frequencies: DocumentFrequencies } }).searcher.frequencies;
    expect(kept.size).toBe(2);
    await s.close();
  });
});
