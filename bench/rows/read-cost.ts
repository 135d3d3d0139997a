/**
 * What a read costs next to a call that does nothing, on the same lane.
 *
 * Connect: GetMemory against a no-op RPC served by the handler `engram
 * serve` builds (connectNodeHandler: the request gate, the outcome
 * interceptor, the subject context and the request observer, here the
 * metrics one with a silent access log), on the same listener (startServer)
 * and called through one HTTP/1.1 Connect transport, once in each encoding
 * (binary, then JSON). The no-op service is
 * defined here from a runtime descriptor (google.protobuf.Empty in, Empty
 * out) and handed to that handler as an extra route, so it passes through
 * everything GetMemory does except the method body.
 *
 * MCP: get_memory against a no-op tool handed to createMcpServer as an extra
 * tool, so both are listed, dispatched, observed and answered (callTool) by
 * the same code, over both lanes and the SDK alone: Streamable HTTP
 * (mcpHttpHandler, one server per POST, as served), stdio (serveStdio in a
 * child process over the same file, mcp-stdio-server.ts, as `engram mcp`
 * serves), and one long-lived server over the SDK's in-process transport,
 * which no lane uses (the SDK's own cost, with no pipe or socket).
 *
 * Calls alternate between the two sides so drift on a shared machine hits
 * both alike; each figure is the median.
 *
 *   ENGRAM_BENCH_READ_RECORDS  records in the store (default 10000)
 *   ENGRAM_BENCH_READS         calls per side and lane (default 1000)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { create, createFileRegistry } from "@bufbuild/protobuf";
import type { GenService } from "@bufbuild/protobuf/codegenv2";
import { EmptySchema, FileDescriptorProtoSchema, file_google_protobuf_empty } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { connectNodeHandler, DEFAULT_MAX_REQUEST_BYTES } from "../../src/connect/index.js";
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger } from "../../src/core/index.js";
import { loadTokenAuth } from "../../src/auth/static-tokens.js";
import { FakeEmbedder } from "../../src/embed/index.js";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import { createMcpServer, mcpHttpHandler } from "../../src/mcp/index.js";
import { accessLog, createMetrics } from "../../src/observe/index.js";
import { startServer, type Handler } from "../../src/server/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { syntheticRecord } from "../../test/helpers/synthetic-record.js";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { NOOP_TOOL } from "./noop-tool.js";

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
  // What serve() observes each request with; the access log is silent here.
  const metrics = createMetrics();
  const observe = accessLog(silentLogger, metrics.observe);
  const connect = connectNodeHandler({
    core,
    log: silentLogger,
    auth,
    maxRequestBytes: DEFAULT_MAX_REQUEST_BYTES,
    observe,
    extraRoutes: (router) => router.service(NoopService, { noop: () => create(EmptySchema) }),
  }) as Handler;
  const server = await startServer({ listenAddr: "127.0.0.1:0", connect, mcp: mcpHttpHandler(core, { maxRequestBytes: DEFAULT_MAX_REQUEST_BYTES, observe, extraTools: NOOP_TOOL }), auth, log: () => {} });
  // Ids spread over the store, so reads do not all hit one cached page.
  const ids = Array.from({ length: 97 }, (_, i) => syntheticRecord(Math.floor((i * records) / 97)).id);
  let k = 0;
  const nextId = () => ids[k++ % ids.length]!;

  try {
    // Both encodings a Connect client may choose: binary (connect-node's and buf curl's default) and JSON (curl, browsers).
    const connectPair = (useBinaryFormat: boolean) => {
      const transport = createConnectTransport({ baseUrl: server.url, httpVersion: "1.1", useBinaryFormat });
      const engram = createClient(EngramService, transport);
      const noop = createClient(NoopService, transport);
      return sideBySide(
        n,
        () => engram.getMemory({ id: nextId() }),
        () => noop.noop({}),
      );
    };
    const [getMs, noopMs] = await connectPair(true);
    const [jsonGetMs, jsonNoopMs] = await connectPair(false);

    const http = new McpClient({ name: "bench", version: "0" });
    await http.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const [httpGet, httpNoop] = await sideBySide(
      n,
      () => http.callTool({ name: "get_memory", arguments: { id: nextId() } }),
      () => http.callTool({ name: "bench_noop", arguments: {} }),
    );
    await http.close();

    // The stdio lane: serveStdio in a child process over the same file, the SDK client on its pipe.
    const stdio = new McpClient({ name: "bench", version: "0" });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", fileURLToPath(new URL("./mcp-stdio-server.ts", import.meta.url))],
        env: { ...(process.env as Record<string, string>), ENGRAM_DATA_DIR: dir, ENGRAM_BENCH_DIM: String(DIM) },
        stderr: "ignore",
      }),
    );
    const [stdioGet, stdioNoop] = await sideBySide(
      n,
      () => stdio.callTool({ name: "get_memory", arguments: { id: nextId() } }),
      () => stdio.callTool({ name: "bench_noop", arguments: {} }),
    );
    await stdio.close();

    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const one = createMcpServer(core, ANONYMOUS, observe, NOOP_TOOL);
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
      row(`Connect GetMemory vs a no-op RPC, same adapter and transport, binary (${records} records)`, getMs, "no-op RPC", noopMs),
      row(`Connect GetMemory vs a no-op RPC, same adapter and transport, JSON (${records} records)`, jsonGetMs, "no-op RPC", jsonNoopMs),
      row("MCP get_memory vs a no-op tool, same SDK server, Streamable HTTP", httpGet, "no-op tool", httpNoop),
      row("MCP get_memory vs a no-op tool, same SDK server, stdio (a child process, as `engram mcp` serves)", stdioGet, "no-op tool", stdioNoop),
      row("MCP get_memory vs a no-op tool, same SDK server, in-process transport (no lane: the SDK alone)", memGet, "no-op tool", memNoop),
    ];
  } finally {
    await server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
