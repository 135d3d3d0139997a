import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { serve } from "../../src/app.js";
import type { Embedder } from "../../src/embed/index.js";
import { FakeEmbedder } from "../../src/embed/index.js";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import { EmbeddedStore } from "../../src/store/embedded-store.js";
import { captureLog } from "./capture-log.js";
import type { Core } from "../../src/core/index.js";

export type TestServer = {
  url: string;
  dataDir: string;
  log: ReturnType<typeof captureLog>;
  embedder: Embedder;
  store: EmbeddedStore;
  core: Core;
  client(token?: string): Client<typeof EngramService>;
  close(): Promise<void>;
};

/** A real engram server on a loopback port with its own data directory. */
export async function startTestServer(opts: { env?: Record<string, string>; embedder?: Embedder } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-test-"));
  const embedder = opts.embedder ?? new FakeEmbedder(64);
  const store = EmbeddedStore.open({ dataDir, dim: embedder.identity.dim });
  const log = captureLog();
  const running = await serve({
    listenAddr: "127.0.0.1:0",
    env: { ENGRAM_DATA_DIR: dataDir, ...opts.env },
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

/** Every record's stored payload, for "nothing changed" assertions. */
export function snapshot(store: EmbeddedStore): string {
  return JSON.stringify(store.database.prepare("SELECT id, payload FROM records ORDER BY id").all());
}
