/**
 * Prints two traces as a collector receives them: one SearchMemories and one
 * StoreMemory refused for a missing field, each as a span tree with
 * durations. A real server (`serve`, embedded store in a temporary
 * directory, the local model in one worker) exports over http/protobuf to
 * the loopback OTLP receiver the tests use.
 *
 *   npx tsx bench/trace-tree.ts
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { serve } from "../src/app.js";
import { silentLogger } from "../src/core/index.js";
import { sharedLocalEmbedder } from "../src/embed/index.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { flushTraces } from "../src/observe/index.js";
import { spanTree, startOtlpReceiver } from "../test/helpers/otlp-receiver.js";

const dir = mkdtempSync(join(tmpdir(), "engram-trace-tree-"));
const receiver = await startOtlpReceiver();
const embedder = sharedLocalEmbedder({ workers: 1 });
await embedder.warmUp();
const running = await serve({
  listenAddr: "127.0.0.1:0",
  env: { ENGRAM_DATA_DIR: dir, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  embedder,
  log: silentLogger,
});
try {
  const client = (traceId: string) =>
    createClient(
      EngramService,
      createConnectTransport({
        baseUrl: running.server.url,
        httpVersion: "1.1",
        interceptors: [
          (next) => async (req) => {
            req.header.set("traceparent", `00-${traceId}-${randomBytes(8).toString("hex")}-01`);
            return next(req);
          },
        ],
      }),
    );
  const warm = client(randomBytes(16).toString("hex"));
  for (const content of ["we chose postgres for the main database", "the deploy runs on fridays", "retries back off exponentially", "the cache holds sessions for 8 hours"]) {
    await warm.storeMemory({ content, scope: "repo:demo", source: "user-said", category: "decision" });
  }
  const search = randomBytes(16).toString("hex");
  await client(search).searchMemories({ query: "which database do we use", scope: "repo:demo" });
  const refused = randomBytes(16).toString("hex");
  const err = await client(refused)
    .storeMemory({ content: "", scope: "repo:demo", source: "user-said", category: "decision" })
    .then(() => undefined, (e: unknown) => ConnectError.from(e));
  await flushTraces();
  await receiver.waitFor((s) => s.traceId === refused && s.kind === 2);
  console.log(`SearchMemories (trace ${search})\n${spanTree(receiver.spans, search)}\n`);
  console.log(`StoreMemory refused with ${err?.rawMessage ?? "nothing"} (trace ${refused})\n${spanTree(receiver.spans, refused)}`);
} finally {
  await running.close();
  await receiver.close();
  await embedder.close();
  rmSync(dir, { recursive: true, force: true });
}
