import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, describe, expect, it } from "vitest";
import { serve } from "../src/app.js";
import { ANONYMOUS, type MemoryRecord } from "../src/core/index.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { GATE_ON } from "../src/store/store.js";
import { captureLog } from "./helpers/capture-log.js";
import { plainRecord } from "./helpers/synthetic-record.js";
import { seededVector } from "./helpers/synthetic-vectors.js";

const embedder = new FakeEmbedder(64);
const DIM = embedder.identity.dim;
const query = { subject: ANONYMOUS, gate: GATE_ON, now: 2_000_000_000 };

function content(i: number): string {
  return `probe note ${i} marker q${i.toString(36)}z`;
}

const rec = (i: number, text = content(i)): MemoryRecord => plainRecord(i, { idHead: "30000000", shortPrefix: "S", content: text, scopes: 3 });

const vec = (i: number): Float32Array => seededVector(i, DIM);

/** Records from..to-1; `embedded` gives them the fake model's vectors of their content, for searches over Connect. */
async function write(store: EmbeddedStore, from: number, to: number, embedded = false): Promise<void> {
  const texts = Array.from({ length: to - from }, (_, j) => content(from + j));
  const vectors = embedded ? await embedder.embedDocuments(texts) : texts.map((_, j) => vec(from + j));
  store.transaction(() => {
    for (let i = from; i < to; i++) store.writeRecord(rec(i), vectors[i - from]);
  });
}

/** The record whose vector is nearest to record i's. */
async function topId(store: EmbeddedStore, i: number): Promise<string | undefined> {
  return (await store.search(query, vec(i), "", 5))[0]?.record.id;
}

/** A gate for the store's background slices: held until released, counting how often it was reached. */
function holdableGate() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const firstReach = new Promise<void>((r) => (reached = r));
  return {
    release,
    reachedOnce: firstReach,
    pass: async () => {
      reached();
      await released;
    },
  };
}

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "engram-catch-up-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A data dir holding records 0..299 with a vector snapshot taken at that point. */
async function snapshottedDir(embedded = false): Promise<string> {
  const dir = dataDir();
  const a = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  await write(a, 0, 300, embedded);
  await a.warm(); // builds the index, so close saves it
  await a.close();
  return dir;
}

describe("a vector snapshot older than engram.db", () => {
  it("is caught up, not trusted: every one of 40 newer records is found, on this start and the next, and the mismatch is logged", async () => {
    const dir = await snapshottedDir();
    cpSync(join(dir, "vectors"), join(dir, "vectors.old"), { recursive: true });

    // 40 more records, and a newer snapshot that records them.
    const b = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await write(b, 300, 340);
    expect(await topId(b, 320)).toBe(rec(320).id);
    await b.close();

    // The old snapshot comes back from a backup beside the newer database.
    rmSync(join(dir, "vectors"), { recursive: true });
    cpSync(join(dir, "vectors.old"), join(dir, "vectors"), { recursive: true });

    for (const start of ["first", "second"]) {
      const log = captureLog();
      const c = EmbeddedStore.open({ dataDir: dir, dim: DIM, log });
      await c.warm();
      const found: number[] = [];
      for (let i = 300; i < 340; i++) if ((await topId(c, i)) === rec(i).id) found.push(i);
      expect(found, `${start} start`).toHaveLength(40);
      expect(await topId(c, 7)).toBe(rec(7).id);
      if (start === "first") {
        const line = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === "vector snapshot is behind the database: catching up from the change log");
        expect(line).toMatchObject({ level: "info", records: 40 });
      }
      await c.close();
    }
  });

  it("a snapshot taken from another database is rebuilt from the records, and says why", async () => {
    const foreign = await snapshottedDir();
    const dir = dataDir();
    const own = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await write(own, 1000, 1040);
    await own.close();
    cpSync(join(foreign, "vectors"), join(dir, "vectors"), { recursive: true });

    const log = captureLog();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM, log });
    await store.warm();
    expect(await topId(store, 1010)).toBe(rec(1010).id);
    // Record 7 lives only in the foreign snapshot; its rowid is one of ours.
    expect(await topId(store, 7)).not.toBe(rec(7).id);
    expect(log.text()).toContain('"msg":"vector snapshot does not match the database: rebuilding the index from the records","reason":"snapshot of another database"');
    await store.close();
  });
});

describe("a store catching up in the background", () => {
  it("answers searches with the right records while its catch-up is held: newer records found, deleted and re-embedded ones as they now are", async () => {
    const dir = await snapshottedDir();
    const writer = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await write(writer, 300, 340);
    await writer.delete(rec(11).id);
    // A replace names the revision it read: it is a conditional write.
    await writer.replace({ ...rec(12, "completely different words now"), revision: (await writer.getRaw(rec(12).id))!.revision }, vec(5012));
    await writer.close();

    const gate = holdableGate();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM, betweenSlices: gate.pass });
    const warmed = store.warm();
    await gate.reachedOnce;
    expect(store.readiness()).toEqual(["index"]);

    for (const i of [300, 317, 339]) expect(await topId(store, i)).toBe(rec(i).id);
    expect(await topId(store, 7)).toBe(rec(7).id);
    const nearEleven = await store.search(query, vec(11), "", 20);
    expect(nearEleven.map((h) => h.record.id)).not.toContain(rec(11).id);
    expect(await topId(store, 5012)).toBe(rec(12).id);
    expect(await topId(store, 12)).not.toBe(rec(12).id);
    expect(store.readiness()).toEqual(["index"]); // reads did not finish the catch-up behind the gate's back

    gate.release();
    await warmed;
    expect(store.readiness()).toEqual([]);
    for (const i of [300, 317, 339]) expect(await topId(store, i)).toBe(rec(i).id);
    await store.close();
  });
});

describe("GET /readyz", () => {
  it("is 503 naming the index while the index catches up, 200 ready after, while /healthz answers 200 throughout", async () => {
    const dir = await snapshottedDir(true);
    const writer = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    await write(writer, 300, 340, true);
    await writer.close();

    const gate = holdableGate();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM, betweenSlices: gate.pass });
    const running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dir }, embedder, store, log: captureLog() });
    try {
      const url = running.server.url;
      await gate.reachedOnce;

      const notReady = await fetch(`${url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ status: "not_ready", waiting: ["index"] });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);

      const client = createClient(EngramService, createConnectTransport({ baseUrl: url, httpVersion: "1.1" }));
      const r = await client.searchMemories({ query: content(333), scope: "repo:0", k: 3n });
      expect(r.memories[0]?.id).toBe(rec(333).id);
      expect((await fetch(`${url}/readyz`)).status).toBe(503);

      gate.release();
      await store.warm();
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready" });
    } finally {
      gate.release();
      await running.close();
    }
  });

  it("names the embedder while it says it is not ready", async () => {
    const dir = dataDir();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    let loaded = false;
    const slow = Object.assign(new FakeEmbedder(64), { readiness: () => (loaded ? { ready: true } : { ready: false, reason: "model loading" }) });
    const running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dir }, embedder: slow, store, log: captureLog() });
    try {
      await store.warm();
      const r = await fetch(`${running.server.url}/readyz`);
      expect(r.status).toBe(503);
      expect(await r.json()).toEqual({ status: "not_ready", waiting: ["embedder"] });
      loaded = true;
      expect((await fetch(`${running.server.url}/readyz`)).status).toBe(200);
    } finally {
      await running.close();
    }
  });
});
