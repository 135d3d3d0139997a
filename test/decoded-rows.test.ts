import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ANONYMOUS, type MemoryRecord } from "../src/core/index.js";
import { encodeRecord } from "../src/store/codec.js";
import { DecodedRows } from "../src/store/embedded/decoded-rows.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { GATE_ON } from "../src/store/store.js";
import { plainRecord, syntheticRecord } from "./helpers/synthetic-record.js";
import { seededVector } from "./helpers/synthetic-vectors.js";

const DIM = 16;
const rec = (i: number, content = `record number ${i}`): MemoryRecord => plainRecord(i, { idHead: "20000000", shortPrefix: "S", content, scopes: 1 });
const vec = (i: number): Float32Array => seededVector(i, DIM);
const query = { subject: ANONYMOUS, gate: GATE_ON, now: 2_000_000_000 };

async function filled(): Promise<{ dir: string; store: EmbeddedStore }> {
  const dir = mkdtempSync(join(tmpdir(), "engram-rows-"));
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  store.transaction(() => {
    for (let i = 0; i < 50; i++) store.writeRecord(rec(i), vec(i));
  });
  return { dir, store };
}

const found = async (store: EmbeddedStore, i: number) => (await store.search(query, vec(i), "", 5)).find((h) => h.record.id === rec(i).id)?.record;

describe("the records a search decodes, kept beside the mirror", () => {
  it("come back from a later search as the same frozen record while the row is unchanged", async () => {
    const { store } = await filled();
    const first = await found(store, 7);
    expect(first?.content).toBe("record number 7");
    expect(await found(store, 7)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    await store.close();
  });

  it("are read again once this connection rewrites the row", async () => {
    const { store } = await filled();
    await found(store, 7);
    store.transaction(() => store.writeRecord(rec(7, "record seven, rewritten"), undefined, undefined, "update"));
    expect((await found(store, 7))?.content).toBe("record seven, rewritten");
    await store.close();
  });

  it("are read again once another connection rewrites the row", async () => {
    const { dir, store } = await filled();
    await found(store, 7);
    const other = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    other.transaction(() => other.writeRecord(rec(7, "record seven, from elsewhere"), undefined, undefined, "update"));
    await other.close();
    expect((await found(store, 7))?.content).toBe("record seven, from elsewhere");
    await store.close();
  });

  it("carry the read counts written after them", async () => {
    const { store } = await filled();
    expect((await found(store, 7))?.access_count).toBe(0);
    store.noteAccess(rec(7).id, "2026-12-07T12:00:00.000Z");
    await store.flushAccess();
    expect((await found(store, 7))?.access_count).toBe(1);
    await store.close();
  });

  it("hold no more payload characters than their bound, and no record over a sixteenth of it", () => {
    const rows = new DecodedRows(1000, 16_000);
    const big = encodeRecord({ ...syntheticRecord(1), content: "x".repeat(2000) }).payload;
    rows.keep(1, big);
    expect(rows.get(1)).toBeUndefined();
    for (let i = 0; i < 100; i++) rows.keep(100 + i, encodeRecord({ ...syntheticRecord(i), content: "y".repeat(400) }).payload);
    const size = encodeRecord({ ...syntheticRecord(0), content: "y".repeat(400) }).payload.length;
    expect(rows.size * size).toBeLessThanOrEqual(16_000);
    expect(rows.get(199)).toBeDefined();
  });

  it("hold no more records than their bound", () => {
    const rows = new DecodedRows(64);
    for (let i = 0; i < 200; i++) rows.keep(i, encodeRecord(syntheticRecord(i)).payload);
    expect(rows.size).toBeLessThanOrEqual(64);
    expect(rows.get(199)?.id).toBe(syntheticRecord(199).id);
    expect(rows.get(0)).toBeUndefined();
  });
});
