import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { serve } from "../../src/app.js";
import type { Embedder } from "../../src/embed/index.js";
import { FakeEmbedder } from "../../src/embed/index.js";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import { ANONYMOUS } from "../../src/model/subject.js";
import type { MemoryRecord } from "../../src/model/record.js";
import type { Store } from "../../src/store/store.js";
import { captureLog } from "./capture-log.js";
import { openTestStore } from "./test-store.js";
import type { Core } from "../../src/core/index.js";

export type TestServer = {
  url: string;
  dataDir: string;
  log: ReturnType<typeof captureLog>;
  embedder: Embedder;
  store: Store;
  /** What a child process (an operator verb) needs to open this server's store. */
  storeEnv: Record<string, string>;
  core: Core;
  client(token?: string): Client<typeof EngramService>;
  close(): Promise<void>;
};

/**
 * A real engram server on a loopback port with its own data directory, on
 * the store this run tests (test/helpers/test-store.ts): the embedded file,
 * or a fresh collection on the Qdrant fake.
 */
export async function startTestServer(opts: { env?: Record<string, string>; embedder?: Embedder; listenAddr?: string } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-test-"));
  const embedder = opts.embedder ?? new FakeEmbedder(64);
  const { store, env: storeEnv } = await openTestStore({ dataDir, dim: embedder.identity.dim, env: opts.env });
  const log = captureLog();
  const running = await serve({
    listenAddr: opts.listenAddr ?? "127.0.0.1:0",
    env: { ...storeEnv, ...opts.env },
    embedder,
    store,
    log,
  });
  const url = running.server.url;
  return {
    url,
    dataDir,
    log,
    embedder,
    store,
    storeEnv,
    core: running.engram.core,
    client(token?: string) {
      return createClient(
        EngramService,
        createConnectTransport({
          baseUrl: url,
          httpVersion: "1.1",
          interceptors: token
            ? [
                (next) => async (req) => {
                  req.header.set("authorization", `Bearer ${token}`);
                  return next(req);
                },
              ]
            : [],
        }),
      );
    },
    async close() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Every record of every owner as the store gives it back, for "nothing
 * changed" assertions, once the reads counted so far are written; read through the port, so it means the same on both
 * stores.
 */
export async function snapshot(store: Store): Promise<string> {
  // Reads are counted now and written within a second or so: counts an
  // earlier test's reads left pending must land before the picture, not
  // between two pictures the caller compares.
  await store.flushAccess();
  const all: MemoryRecord[] = [];
  const query = { subject: ANONYMOUS, allOwners: true, gate: null, now: Math.floor(Date.now() / 1000) };
  for (let offset = 0; ; offset += 500) {
    const { records } = await store.list(query, { order: "asc", offset, limit: 500 });
    all.push(...records);
    if (records.length < 500) break;
  }
  all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return JSON.stringify(all);
}
