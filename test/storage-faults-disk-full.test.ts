/**
 * A full disk, for real: the store lives on an 8 MiB tmpfs that the test
 * fills with a file of zeros. Writes must answer `unavailable` with the
 * fixed sentence (CLI exit 5), the episode is logged once with its cause,
 * /readyz names `store_writes`, reads keep working, and when the filler is
 * removed writes and /readyz recover without a restart. Nothing
 * acknowledged is lost and no refused write leaves a record behind.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, unavailableText } from "../src/argerror/index.js";
import { serve } from "../src/app.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { captureLog } from "./helpers/capture-log.js";
import { runEngram } from "./helpers/run-engram.js";
import { fillDisk, mountSmallFs, type SmallFs } from "./helpers/small-fs.js";

const mounted = mountSmallFs(8);
const skip = "skip" in mounted ? mounted.skip : undefined;
if (skip) console.warn(`storage-faults-disk-full: skipped: ${skip}`);
// At file level, so the mount goes away even when a filter selects none of the tests.
afterAll(() => {
  if (!("skip" in mounted)) mounted.unmount();
});

const CANNOT_WRITE = unavailableText("store_cannot_write");

describe.skipIf(skip !== undefined)("a store on a full disk", { timeout: 120_000 }, () => {
  const fs = mounted as SmallFs;
  const dataDir = join(fs.dir, "data");
  const filler = join(fs.dir, "filler");
  const log = captureLog();
  let running: Awaited<ReturnType<typeof serve>>;
  let client: ReturnType<typeof createClient<typeof EngramService>>;
  const acked: { id: string; content: string }[] = [];
  const refused: string[] = [];

  const readyz = async () => {
    const r = await fetch(`${running.server.url}/readyz`);
    return { status: r.status, body: (await r.json()) as { status: string; waiting?: string[] } };
  };
  const store = (content: string) => client.storeMemory({ content, scope: "repo:full", source: "user-said", category: "decision" });
  const episodeLines = () => log.lines.filter((l) => l.includes('"msg":"store cannot accept writes'));

  beforeAll(async () => {
    const embedder = new FakeEmbedder(64);
    const s = EmbeddedStore.open({ dataDir, dim: 64, log, writeProbeMs: 50 });
    running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dataDir }, embedder, store: s, log });
    client = createClient(EngramService, createConnectTransport({ baseUrl: running.server.url, httpVersion: "1.1" }));
    for (let i = 0; i < 5; i++) {
      const content = `before the disk filled ${i}`;
      acked.push({ id: (await store(content)).id, content });
    }
    fillDisk(filler);
    // Write until the store refuses: some writes may still fit in pages SQLite already holds.
    for (let i = 0; i < 400 && refused.length === 0; i++) {
      const content = `written on a full disk ${i} ${"x".repeat(2000)}`;
      try {
        acked.push({ id: (await store(content)).id, content });
      } catch (err) {
        refused.push(content);
        expect(err).toBeInstanceOf(ConnectError);
        expect((err as ConnectError).code).toBe(Code.Unavailable);
        expect((err as ConnectError).rawMessage).toBe(CANNOT_WRITE);
      }
    }
  });

  afterAll(async () => {
    await running?.close();
  });

  it("refuses a write with unavailable and the fixed sentence, never internal", async () => {
    expect(refused.length).toBe(1);
    const again = `a second write while full ${"y".repeat(2000)}`;
    const err = await store(again).catch((e: unknown) => e);
    refused.push(again);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unavailable);
    expect((err as ConnectError).rawMessage).toBe(CANNOT_WRITE);
    expect(log.text()).not.toContain("internal error");
    expect(log.lines.filter((l) => l.includes("request failed"))).toEqual([]);
  });

  it("says so with exit 5 and the sentence on the CLI", async () => {
    const r = await runEngram(["store", "--content", `from the cli ${"z".repeat(2000)}`, "--scope", "repo:full", "--source", "user-said", "--category", "decision"], {
      ENGRAM_SERVER_URL: running.server.url,
    });
    refused.push("from the cli");
    expect(r.code).toBe(EXIT.unavailable);
    expect(r.stderr.trim()).toBe(CANNOT_WRITE);
  });

  it("logs the episode once, at warn, with the cause class", () => {
    expect(episodeLines()).toEqual([
      JSON.stringify({ level: "warn", msg: "store cannot accept writes: writes answer unavailable until it can", cause: "SQLITE_FULL" }),
    ]);
  });

  it("names store_writes on /readyz while it lasts", async () => {
    const r = await readyz();
    expect(r.status).toBe(503);
    expect(r.body.waiting).toContain("store_writes");
  });

  it("keeps answering reads of everything acknowledged", async () => {
    for (const a of acked) expect((await client.getMemory({ id: a.id })).memory?.content).toBe(a.content);
    const listed = await client.listMemories({ scope: "repo:full", limit: 1000n, full: true });
    expect(listed.memories.map((m) => m.id).sort()).toEqual(acked.map((a) => a.id).sort());
  });

  it("recovers without a restart once space is freed: /readyz 200, writes succeed, nothing lost, nothing partial", async () => {
    rmSync(filler);
    let r = await readyz();
    for (let i = 0; i < 600 && r.status !== 200; i++) {
      await new Promise((res) => setTimeout(res, 50));
      r = await readyz();
    }
    expect(r).toEqual({ status: 200, body: { status: "ready" } });
    expect(log.lines.filter((l) => l.includes("store accepts writes again"))).toEqual([
      JSON.stringify({ level: "info", msg: "store accepts writes again", cause: "SQLITE_FULL" }),
    ]);
    const content = "after the space came back";
    acked.push({ id: (await store(content)).id, content });

    const listed = await client.listMemories({ scope: "repo:full", limit: 1000n, full: true });
    const contents = listed.memories.map((m) => m.content);
    expect(listed.memories.map((m) => m.id).sort()).toEqual(acked.map((a) => a.id).sort());
    for (const a of acked) expect(contents).toContain(a.content);
    for (const text of refused) expect(contents.some((c) => c.startsWith(text.slice(0, 24)))).toBe(false);
    expect(log.lines.filter((l) => l.includes("request failed") || l.includes("internal error"))).toEqual([]);
    expect(episodeLines()).toHaveLength(1);
  });
});
