/**
 * What a read costs next to a call that does nothing, on the same lane.
 *
 * Connect: GetMemory against a no-op RPC registered on the same
 * connectNodeAdapter, served by the same listener (startServer, as
 * `engram serve` runs it) and called through one HTTP/1.1 Connect
 * transport. The no-op service is defined here from a runtime descriptor
 * (google.protobuf.Empty in, Empty out), so it passes through the same
 * adapter, context values and wire as GetMemory and does no work.
 *
 * MCP: get_memory against a no-op tool registered on the same McpServer,
 * over both lanes: Streamable HTTP (the served lane, one server per POST as
 * mcpHttpHandler builds it, here with the extra tool) and one long-lived
 * server over an in-process transport (the shape of the stdio lane, minus
 * the pipe).
 *
 * Calls alternate between the two sides so drift on a shared machine hits
 * both alike; each figure is the median.
 *
 *   ENGRAM_BENCH_READ_RECORDS  records in the store (default 10000)
 *   ENGRAM_BENCH_READS         calls per side and lane (default 1000)
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { create, createFileRegistry } from "@bufbuild/protobuf";
import type { GenService } from "@bufbuild/protobuf/codegenv2";
import { EmptySchema, FileDescriptorProtoSchema, file_google_protobuf_empty } from "@bufbuild/protobuf/wkt";
import { createClient, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter, createConnectTransport } from "@connectrpc/connect-node";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { engramRoutes, subjectContextValues } from "../../src/connect/index.js";
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger, type Core, type Subject } from "../../src/core/index.js";
import { loadTokenAuth } from "../../src/core/static-tokens.js";
import { FakeEmbedder } from "../../src/embed/index.js";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import { callTool, createMcpServer, handlerOf, type ToolName } from "../../src/mcp/index.js";
import { startServer, subjectOf, type Handler } from "../../src/server.js";
import { EmbeddedStore } from "../../src/store/embedded-store.js";
import { syntheticRecord } from "../../test/helpers/synthetic-record.js";
import type { BenchRow, BenchSection } from "../bench-row.js";

const GOAL = 1.3;
const DIM = 64;

/** bench.v1.NoopService/Noop: Empty in, Empty out, built at run time (the cast only names the shape it has). */
const NoopService = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "bench/noop.proto",
    package: "bench.v1",
    syntax: "proto3",
    dependency: ["google/protobuf/empty.proto"],
    service: [{ name: "NoopService", method: [{ name: "Noop", inputType: ".google.protobuf.Empty", outputType: ".google.protobuf.Empty" }] }],
  }),
  (name) => (name === "google/protobuf/empty.proto" ? file_google_protobuf_empty : undefined),
).getService("bench.v1.NoopService") as unknown as GenService<{
  noop: { methodKind: "unary"; input: typeof EmptySchema; output: typeof EmptySchema };
}>;

/**
 * The engram server answers tools/call itself (names outside its table are
 * refused), so the no-op joins that same dispatch: listed like any tool, and
 * answered by a tools/call handler that routes every other name exactly as
 * createMcpServer's does.
 */
function addNoopTool(server: McpServer, core: Core, subject: Subject): void {
  server.registerTool("bench_noop", { description: "does nothing", inputSchema: {} }, () => ({ content: [{ type: "text", text: "" }] }));
  const ctx = { core, subject };
  server.server.setRequestHandler(CallToolRequestSchema, (request) => {
    const name = request.params.name;
    if (name === "bench_noop") return { content: [{ type: "text", text: "" }] };
    return callTool(name as ToolName, handlerOf(name as ToolName)!, ctx, request.params.arguments ?? {});
  });
}

/** mcpHttpHandler's shape (one server and one transport per POST, plain JSON answers), with the no-op tool added. */
function mcpHandlerWithNoop(core: Core): Handler {
  return (req, res) => {
    const subject = subjectOf(req) ?? ANONYMOUS;
    const server = createMcpServer(core, subject);
    addNoopTool(server, core, subject);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once("close", () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req as IncomingMessage, res as ServerResponse));
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Alternates a and b `n` times after a warm-up; the median milliseconds of each. */
async function sideBySide(n: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  for (let i = 0; i < Math.min(200, n); i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    await a();
    ta.push(performance.now() - t);
    t = performance.now();
    await b();
    tb.push(performance.now() - t);
  }
  return [median(ta), median(tb)];
}

function row(measure: string, ms: number, refLabel: string, refMs: number): BenchRow {
  const ratio = ms / refMs;
  return {
    measure,
    value: `${ms.toFixed(3)} ms p50`,
    reference: `${refLabel} ${refMs.toFixed(3)} ms p50`,
    ratio,
    goal: `<= ${GOAL}x`,
    met: ratio <= GOAL,
  };
}

export const readCost: BenchSection = async () => {
  const records = Number(process.env.ENGRAM_BENCH_READ_RECORDS ?? 10_000);
  const n = Number(process.env.ENGRAM_BENCH_READS ?? 1000);
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-reads-"));
  const store = EmbeddedStore.open({ dataDir: dir, dim: DIM });
  const vector = new Float32Array(DIM).fill(1 / Math.sqrt(DIM));
  store.transaction(() => {
    for (let i = 0; i < records; i++) store.writeRecord(syntheticRecord(i, { short_id: `B${String(i).padStart(9, "0")}` }), vector);
  });
  const core = createCore({ store, embedder: new FakeEmbedder(DIM), limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
  const auth = loadTokenAuth({});
  const connect = connectNodeAdapter({
    routes: (router: ConnectRouter) => {
      engramRoutes(core, silentLogger)(router);
      router.service(NoopService, { noop: () => create(EmptySchema) });
    },
    contextValues: subjectContextValues(auth),
  }) as unknown as Handler;
  const server = await startServer({ listenAddr: "127.0.0.1:0", connect, mcp: mcpHandlerWithNoop(core), auth, log: () => {} });
  // Ids spread over the store, so reads do not all hit one cached page.
  const ids = Array.from({ length: 97 }, (_, i) => syntheticRecord(Math.floor((i * records) / 97)).id);
  let k = 0;
  const nextId = () => ids[k++ % ids.length]!;

  try {
    const transport = createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" });
    const engram = createClient(EngramService, transport);
    const noop = createClient(NoopService, transport);
    const [getMs, noopMs] = await sideBySide(
      n,
      () => engram.getMemory({ id: nextId() }),
      () => noop.noop({}),
    );

    const http = new McpClient({ name: "bench", version: "0" });
    await http.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const [httpGet, httpNoop] = await sideBySide(
      n,
      () => http.callTool({ name: "get_memory", arguments: { id: nextId() } }),
      () => http.callTool({ name: "bench_noop", arguments: {} }),
    );
    await http.close();

    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const one = createMcpServer(core, ANONYMOUS);
    addNoopTool(one, core, ANONYMOUS);
    await one.connect(serverSide);
    const mem = new McpClient({ name: "bench", version: "0" });
    await mem.connect(clientSide);
    const [memGet, memNoop] = await sideBySide(
      n,
      () => mem.callTool({ name: "get_memory", arguments: { id: nextId() } }),
      () => mem.callTool({ name: "bench_noop", arguments: {} }),
    );
    await mem.close();
    await one.close();

    return [
      row(`Connect GetMemory vs a no-op RPC, same adapter and transport (${records} records)`, getMs, "no-op RPC", noopMs),
      row("MCP get_memory vs a no-op tool, same SDK server, Streamable HTTP", httpGet, "no-op tool", httpNoop),
      row("MCP get_memory vs a no-op tool, same SDK server, one long-lived server", memGet, "no-op tool", memNoop),
    ];
  } finally {
    await server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
