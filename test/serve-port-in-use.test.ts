/**
 * A start that cannot bind its port stops before it records anything: the
 * next start, with another embedder, is not refused as if records had been
 * written by the first.
 */
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../src/app.js";
import { FakeEmbedder, identityKey } from "../src/embed/index.js";
import { captureLog } from "./helpers/capture-log.js";

let dataDir: string;
let holder: net.Server;
let busy: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "engram-port-in-use-"));
  holder = net.createServer();
  await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
  busy = `127.0.0.1:${(holder.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => holder.close(() => r()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a start whose port is in use", () => {
  it("fails, and leaves the data directory free for a start with another embedder", async () => {
    const env = { ENGRAM_DATA_DIR: dataDir };
    await expect(serve({ listenAddr: busy, env, embedder: new FakeEmbedder(64), log: captureLog() })).rejects.toMatchObject({ code: "EADDRINUSE" });
    const next = await serve({ listenAddr: "127.0.0.1:0", env, embedder: new FakeEmbedder(32), log: captureLog() });
    try {
      expect(await next.engram.deps.store.getMeta("embedder_identity")).toBe(identityKey(new FakeEmbedder(32).identity));
    } finally {
      await next.close();
    }
  });
});
