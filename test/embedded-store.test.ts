import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ANONYMOUS, type MemoryRecord } from "../src/core/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { GATE_ON } from "../src/store/store.js";
import { plainRecord } from "./helpers/synthetic-record.js";
import { seededVector } from "./helpers/synthetic-vectors.js";

const DIM = 16;

const rec = (i: number): MemoryRecord => plainRecord(i, { idHead: "10000000", shortPrefix: "R", content: `record number ${i}`, scopes: 4 });

const vec = (i: number): Float32Array => seededVector(i, DIM);

const query = { subject: ANONYMOUS, gate: GATE_ON, now: 2_000_000_000 };

describe("the embedded store", () => {
  it("a reopened store serves from its saved vector snapshot plus what changed after it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-es-"));
    const a = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    a.transaction(() => {
      for (let i = 0; i < 5000; i++) a.writeRecord(rec(i), vec(i));
    });
    const before = (await a.search(query, vec(42), "", 5)).map((h) => h.record.id);
    expect(before[0]).toBe(rec(42).id);
    await a.close();
    expect(existsSync(join(dir, "vectors", "manifest.json"))).toBe(true);

    // Another process writes while the snapshot is on disk.
    const writer = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await writer.create(rec(9001), vec(9001));
    await writer.delete(rec(42).id);
    await writer.close();

    const b = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const hits = (await b.search(query, vec(9001), "", 3)).map((h) => h.record.id);
    expect(hits[0]).toBe(rec(9001).id);
    expect((await b.search(query, vec(42), "", 5)).map((h) => h.record.id)).not.toContain(rec(42).id);
    await b.close();
  });

  it("a one-scope search follows a record moved into the scope, before and after a reopen from the snapshot", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-es-"));
    const inScope = (i: number) => ({ ...rec(i), scope: i < 3000 ? "repo:big" : "repo:small" });
    const a = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    a.transaction(() => {
      for (let i = 0; i < 5000; i++) a.writeRecord(inScope(i), vec(i));
    });
    const big = { ...query, scope: "repo:big" };
    expect((await a.search(big, vec(17), "", 5))[0]!.record.id).toBe(rec(17).id);
    // Moved without a new vector: only its scope changes.
    a.transaction(() => a.writeRecord({ ...inScope(4000), scope: "repo:big" }, undefined, undefined, "update"));
    const moved = await a.search(big, vec(4000), "", 5);
    expect(moved[0]!.record.id).toBe(rec(4000).id);
    expect(moved.every((h) => h.record.scope === "repo:big")).toBe(true);
    await a.close();

    const b = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await b.warm();
    expect((await b.search(big, vec(4000), "", 5))[0]!.record.id).toBe(rec(4000).id);
    b.transaction(() => b.writeRecord({ ...inScope(4000), scope: "repo:small" }, undefined, undefined, "update"));
    expect((await b.search(big, vec(4000), "", 40)).map((h) => h.record.id)).not.toContain(rec(4000).id);
    expect((await b.search({ ...query, scope: "repo:small" }, vec(4000), "", 5))[0]!.record.id).toBe(rec(4000).id);
    await b.close();
  });

  it("two connections on one file see each other's writes without reopening", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-es-"));
    const server = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const operator = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await server.create(rec(1), vec(1));
    expect(await operator.count({ ...query, scope: "repo:1" })).toBe(1);
    await operator.replace({ ...(await operator.getRaw(rec(1).id))!, archived_at: "2026-01-01T00:00:00.000Z" });
    expect(await server.count({ ...query, scope: "repo:1" })).toBe(0);
    expect((await server.search(query, vec(1), "record", 3)).map((h) => h.record.id)).not.toContain(rec(1).id);
    await server.close();
    await operator.close();
  });

  it("a point read sees another connection's rewrite, delete and new record on the next call", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-es-"));
    const server = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const operator = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await server.create(rec(1), vec(1));
    await server.create(rec(2), vec(2));
    expect((await server.getReadable(rec(1).id, ANONYMOUS))?.content).toBe("record number 1");

    await operator.replace({ ...(await operator.getRaw(rec(1).id))!, content: "rewritten elsewhere" });
    expect((await server.getReadable(rec(1).id, ANONYMOUS))?.content).toBe("rewritten elsewhere");
    await operator.delete(rec(2).id);
    expect(await server.getReadable(rec(2).id, ANONYMOUS)).toBeUndefined();
    await operator.create(rec(3), vec(3));
    expect((await server.getOwned(rec(3).id, ANONYMOUS))?.id).toBe(rec(3).id);
    // And the other way round: a record the mirror does not admit becomes readable once it is restored elsewhere.
    await operator.replace({ ...(await operator.getRaw(rec(1).id))!, owner: "someone-else", visibility: "" });
    expect(await server.getReadable(rec(1).id, ANONYMOUS)).toBeUndefined();
    await operator.replace({ ...(await operator.getRaw(rec(1).id))!, owner: "" });
    expect((await server.getReadable(rec(1).id, ANONYMOUS))?.id).toBe(rec(1).id);
    await server.close();
    await operator.close();
  });

  it("a point read repeated from the loaded mirror still sees every rewrite, here or elsewhere, and no caller can change what the next one reads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-es-"));
    const server = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    const operator = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await server.create(rec(1), vec(1));
    await server.create(rec(2), vec(2));
    await server.warm();
    const read = async (i: number) => (await server.getReadable(rec(i).id, ANONYMOUS))?.content;
    expect(await read(1)).toBe("record number 1");
    const first = (await server.getReadable(rec(1).id, ANONYMOUS))!;
    expect(() => {
      first.content = "changed by the caller";
    }).toThrow(TypeError);
    expect(() => first.tags.push("caller-tag")).toThrow(TypeError);
    expect(await server.getReadable(rec(1).id, ANONYMOUS)).toMatchObject({ content: "record number 1", tags: [] });

    await server.replace({ ...(await server.getRaw(rec(1).id))!, content: "rewritten here" });
    expect(await read(1)).toBe("rewritten here");
    await operator.replace({ ...(await operator.getRaw(rec(1).id))!, content: "rewritten elsewhere" });
    expect(await read(1)).toBe("rewritten elsewhere");

    expect(await read(2)).toBe("record number 2");
    server.noteAccess(rec(2).id, "2026-01-01T00:00:00.000Z");
    server.flushAccess();
    expect((await server.getReadable(rec(2).id, ANONYMOUS))?.access_count).toBe(1);
    await operator.delete(rec(2).id);
    expect(await server.getReadable(rec(2).id, ANONYMOUS)).toBeUndefined();
    await server.close();
    await operator.close();
  });

  it("the lexical candidates are the records holding the most (and rarest) query words, ties by age", async () => {
    const s = EmbeddedStore.open({ dataDir: ":memory:", dim: DIM });
    for (let i = 100; i < 140; i++) await s.create({ ...rec(i), content: `plain note ${i} about flux` }, vec(i));
    await s.create({ ...rec(7), content: "the flux capacitor needs plutonium" }, vec(7));
    await s.create({ ...rec(8), content: "the capacitor is charged" }, vec(8));
    await s.create({ ...rec(9), content: "another capacitor is charged" }, vec(9));
    // One lexical candidate: rec 7 holds both words, every other record at most one.
    const both = (await s.search(query, vec(120), "flux capacitor", 1)).map((h) => h.record.id);
    expect(both).toContain(rec(7).id);
    expect(both).toHaveLength(2);
    // "capacitor" is rarer than "flux": of the records holding one word, theirs come first, the older first.
    const one = (await s.search(query, vec(120), "capacitor flux", 3)).map((h) => h.record.id);
    expect(one).toEqual(expect.arrayContaining([rec(7).id, rec(8).id, rec(9).id]));
    await s.close();
  });

  it("a lexical match is a candidate even when its vector is far away", async () => {
    const s = EmbeddedStore.open({ dataDir: ":memory:", dim: DIM });
    await s.create({ ...rec(7), content: "the flux capacitor needs plutonium" }, vec(7));
    for (let i = 100; i < 140; i++) await s.create(rec(i), vec(i));
    const hits = await s.search(query, vec(120), "plutonium", 5);
    expect(hits.map((h) => h.record.id)).toContain(rec(7).id);
    await s.close();
  });
});
