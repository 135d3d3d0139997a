/**
 * The local model runs in worker threads behind a bounded queue: the event
 * loop keeps answering while a maximum-size memory embeds, and a request the
 * queue cannot hold is refused at once as `unavailable` on every lane.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, unavailableText } from "../src/argerror/index.js";
import { PooledLocalEmbedder, sharedLocalEmbedder } from "../src/embed/index.js";
import { release } from "./fixtures/gated-model.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { runEngram } from "./helpers/run-engram.js";

const GATED_MODEL = new URL("./fixtures/gated-model.ts", import.meta.url).href;
const RECORD = { source: "user-said", category: "convention" } as const;
const AT_CAPACITY = "unavailable: the embedder is at capacity; retry shortly";

/** Realistic prose, exactly `bytes` long (ASCII). */
function prose(bytes: number): string {
  const para =
    "The deployment pipeline builds the service, runs the migrations against a staging copy of the database, " +
    "and only then promotes the image. When a migration fails, the pipeline stops and the previous image keeps serving. ";
  return para.repeat(Math.ceil(bytes / para.length)).slice(0, bytes);
}

/** Resolves once `probe` holds, checking on every turn of the event loop (no clock involved). */
async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((r) => setImmediate(r));
}

describe("a maximum-size store on the real local model", () => {
  let server: TestServer;
  const embedder = sharedLocalEmbedder();

  beforeAll(async () => {
    await embedder.warmUp();
    server = await startTestServer({ embedder });
  });
  afterAll(async () => server?.close());

  it("reports the embedder ready once the model has loaded", () => {
    expect(embedder.readiness()).toEqual({ ready: true });
  });

  it("lets /healthz and a small GetMemory finish while it is still embedding", async () => {
    const client = server.client();
    const small = await client.storeMemory({ content: "use pnpm, not npm", scope: "repo:order", ...RECORD });
    const order: string[] = [];

    const big = client
      .storeMemory({ content: prose(65536), scope: "repo:order", ...RECORD })
      .then(() => order.push("store 64 KiB"));
    await until(() => embedder.pressure().running === 1);

    const health = fetch(`${server.url}/healthz`).then((r) => {
      expect(r.status).toBe(200);
      order.push("healthz");
    });
    const get = client.getMemory({ id: small.id }).then((m) => {
      expect(m.memory?.content).toBe("use pnpm, not npm");
      order.push("get small");
    });
    await Promise.all([big, health, get]);

    expect(order.indexOf("healthz")).toBeLessThan(order.indexOf("store 64 KiB"));
    expect(order.indexOf("get small")).toBeLessThan(order.indexOf("store 64 KiB"));
  });
});

describe("a full queue (1 worker, queue 1, a blocked model)", () => {
  const gate = new SharedArrayBuffer(8);
  const embedder = new PooledLocalEmbedder({ workers: 1, queue: 1, loader: { module: GATED_MODEL, data: gate } });
  let server: TestServer;
  let held: Promise<unknown>[] = [];

  beforeAll(async () => {
    server = await startTestServer({ embedder });
    const client = server.client();
    // One store occupies the worker, one waits in the queue; both stay until the gate opens.
    held.push(client.storeMemory({ content: "first, in the worker", scope: "repo:full", ...RECORD }));
    await until(() => embedder.pressure().running === 1 && Atomics.load(new Int32Array(gate), 0) === 1);
    held.push(client.storeMemory({ content: "second, in the queue", scope: "repo:full", ...RECORD }));
    await until(() => embedder.pressure().queued === 1);
  });
  afterAll(async () => {
    release(gate);
    await Promise.allSettled(held);
    await server?.close();
    await embedder.close();
  });

  it("renders the at-capacity text from the vocabulary table", () => {
    expect(unavailableText("embedder_at_capacity")).toBe(AT_CAPACITY);
  });

  it("answers a third StoreMemory on Connect with unavailable and the fixed text", async () => {
    const err = await server
      .client()
      .storeMemory({ content: "third, refused: secret-overflow-text", scope: "repo:full", ...RECORD })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unavailable);
    expect((err as ConnectError).rawMessage).toBe(AT_CAPACITY);
  });

  it("answers a third store_memory on MCP with an isError result holding the same text", async () => {
    const client = new Client({ name: "embed-pool-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const res = await client.callTool({
        name: "store_memory",
        arguments: { content: "third over MCP: secret-overflow-text", scope: "repo:full", ...RECORD },
      });
      expect(res.isError).toBe(true);
      expect(res.content).toEqual([{ type: "text", text: AT_CAPACITY }]);
    } finally {
      await client.close();
    }
  });

  it("makes `engram store` exit 5 with the same text on stderr, exactly as the server sent it", async () => {
    const run = await runEngram([
      "store", "--content", "third from the CLI: secret-overflow-text", "--scope", "repo:full",
      "--source", RECORD.source, "--category", RECORD.category, "--server", server.url,
    ]);
    expect(run.code).toBe(EXIT.unavailable);
    expect(run.stderr.trim()).toBe(AT_CAPACITY);
  });

  it("logs each refusal at warn with its reason, never the content", () => {
    const warns = server.log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === "warn" && l.reason);
    expect(warns.length).toBeGreaterThanOrEqual(2);
    for (const w of warns) expect(w.reason).toBe("embedder_at_capacity");
    expect(server.log.text()).not.toContain("secret-overflow-text");
  });

  it("still stores the two held requests once the model answers", async () => {
    release(gate);
    const done = await Promise.all(held);
    expect(done).toHaveLength(2);
    held = [];
    const ids = done.map((d) => (d as { id: string }).id);
    const contents = await Promise.all(ids.map(async (id) => (await server.client().getMemory({ id })).memory?.content));
    expect(contents.sort()).toEqual(["first, in the worker", "second, in the queue"]);
  });
});
