/**
 * OpenTelemetry traces as a collector receives them: a real server (on the
 * store this run tests) exporting to a loopback OTLP/HTTP receiver, in both
 * encodings, called over Connect, gRPC and MCP over HTTP with a caller's
 * W3C traceparent.
 */
import { randomBytes } from "node:crypto";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeEmbedder } from "../src/embed/index.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { flushTraces } from "../src/observe/index.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./helpers/otlp-receiver.js";
import { runEngram } from "./helpers/run-engram.js";
import { startFakeChat, type FakeChat } from "./helpers/fake-chat-server.js";

const TOKEN = "tracing-test-token-7f3a";
const SERVER = 2;
const CLIENT = 3;
/** What the caller sends that no span may carry. */
const SECRET_CONTENT = "the vault code is swordfish-4411";
const SECRET_QUERY = "where is swordfish kept";
const SECRET_TAG = "tag-marlin-9920";

/** A fresh W3C trace context a caller would send. */
function traceparent(): { header: string; traceId: string; parentId: string } {
  const traceId = randomBytes(16).toString("hex");
  const parentId = randomBytes(8).toString("hex");
  return { header: `00-${traceId}-${parentId}-01`, traceId, parentId };
}

const withHeaders =
  (headers: Record<string, string>): Interceptor =>
  (next) =>
  async (req) => {
    for (const [k, v] of Object.entries(headers)) req.header.set(k, v);
    return next(req);
  };

function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);
}

function everyText(spans: readonly ReceivedSpan[]): string {
  return JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, resource: s.resource })));
}

describe.each(["http/protobuf", "http/json"])("traces exported over %s", (protocol) => {
  let receiver: OtlpReceiver;
  let server: TestServer;
  const sessions: Http2SessionManager[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = await startTestServer({
      env: {
        ENGRAM_AUTH_TOKENS: `alice=${TOKEN}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: "engram-under-test",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=ci,team=memory%20lane",
      },
      // The operator verb below opens the store with its own local embedder's 512 dimensions: on Qdrant the collection must match.
      embedder: new FakeEmbedder(512),
    });
  });

  afterAll(async () => {
    for (const s of sessions) s.abort();
    await server?.close();
    await receiver?.close();
  });

  const connect = (headers: Record<string, string>) =>
    createClient(EngramService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1", interceptors: [withHeaders({ authorization: `Bearer ${TOKEN}`, ...headers })] }));

  it("a SearchMemories over Connect is one server span in the caller's trace, with the embedding, the store reads and the ranking beneath it", async () => {
    await connect({}).storeMemory({ content: SECRET_CONTENT, scope: "repo:trace", source: "user-said", category: "decision", tags: [SECRET_TAG] });
    const tp = traceparent();
    await connect({ traceparent: tp.header }).searchMemories({ query: SECRET_QUERY, scope: "repo:trace" });
    await flushTraces();
    const call = await receiver.waitFor((s) => s.traceId === tp.traceId && s.kind === SERVER);

    expect(call.name).toBe("engram.v1.EngramService/SearchMemories");
    expect(call.parentSpanId).toBe(tp.parentId);
    expect(call.attributes).toMatchObject({
      "rpc.system": "connect_rpc",
      "rpc.service": "engram.v1.EngramService",
      "rpc.method": "SearchMemories",
      "engram.auth.lane": "static",
      "engram.code": "ok",
    });
    expect(call.resource).toMatchObject({ "service.name": "engram-under-test", "deployment.environment.name": "ci", team: "memory lane" });
    const children = childrenOf(receiver.spans, call).map((s) => s.name);
    expect(children).toEqual(expect.arrayContaining(["engram.embed", "engram.store.search", "engram.store.termWeights", "engram.rank"]));
    for (const child of childrenOf(receiver.spans, call)) {
      expect(child.startNs >= call.startNs && child.endNs <= call.endNs, child.name).toBe(true);
    }
    if (server.store.kind === "qdrant") {
      const search = childrenOf(receiver.spans, call).find((s) => s.name === "engram.store.search")!;
      const requests = childrenOf(receiver.spans, search);
      expect(requests.length).toBeGreaterThan(0);
      for (const r of requests) expect(r).toMatchObject({ kind: CLIENT, attributes: { "db.system.name": "qdrant" } });
    }
  });

  it("a StoreMemory refused over gRPC carries its code, hint and field on the server span", async () => {
    const session = new Http2SessionManager(server.url);
    sessions.push(session);
    const tp = traceparent();
    const grpc = createClient(EngramService, createGrpcTransport({ baseUrl: server.url, sessionManager: session, interceptors: [withHeaders({ authorization: `Bearer ${TOKEN}`, traceparent: tp.header })] }));
    const refused = await grpc.storeMemory({ content: "", scope: "repo:trace", source: "user-said", category: "decision" }).catch((e: unknown) => ConnectError.from(e));
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.InvalidArgument);
    await flushTraces();
    const call = await receiver.waitFor((s) => s.traceId === tp.traceId && s.kind === SERVER);

    expect(call.name).toBe("engram.v1.EngramService/StoreMemory");
    expect(call.parentSpanId).toBe(tp.parentId);
    expect(call.attributes).toMatchObject({
      "rpc.system": "grpc",
      "rpc.grpc.status_code": Code.InvalidArgument,
      "engram.protocol": "grpc",
      "engram.code": "invalid_argument",
      "engram.refusal.hint": "required",
      "engram.refusal.field": "content",
    });
    // A caller's mistake is not the server's failure.
    expect(call.status).not.toBe(2);
  });

  it("an MCP tools/call over HTTP is one server span named after the tool, in the caller's trace; tools/list makes none", async () => {
    const tp = traceparent();
    const client = new McpClient({ name: "trace-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}`, traceparent: tp.header } } }),
    );
    await client.listTools();
    const result = await client.callTool({ name: "search_memory", arguments: { query: SECRET_QUERY, scope: "repo:trace" } });
    expect(result.isError).toBeFalsy();
    await client.close();
    await flushTraces();
    const call = await receiver.waitFor((s) => s.traceId === tp.traceId && s.kind === SERVER);

    expect(call.name).toBe("tools/call search_memory");
    expect(call.parentSpanId).toBe(tp.parentId);
    expect(call.attributes).toMatchObject({ "rpc.system": "jsonrpc", "mcp.method.name": "tools/call", "gen_ai.tool.name": "search_memory", "engram.auth.lane": "static", "engram.code": "ok" });
    expect(receiver.spans.filter((s) => s.traceId === tp.traceId && s.kind === SERVER)).toHaveLength(1);
    expect(childrenOf(receiver.spans, call).map((s) => s.name)).toEqual(expect.arrayContaining(["engram.embed", "engram.rank"]));
  });

  it("no span holds a caller's content, query, tag, token or full id", async () => {
    const { id } = await connect({}).storeMemory({ content: SECRET_CONTENT, scope: "repo:secrets", source: "user-said", category: "decision", tags: [SECRET_TAG] });
    await connect({}).getMemory({ id });
    await connect({}).searchMemories({ query: SECRET_QUERY, scope: "repo:secrets", tags: [SECRET_TAG] });
    await flushTraces();
    await receiver.waitFor((s) => s.name === "engram.v1.EngramService/GetMemory");
    const text = everyText(receiver.spans);
    for (const secret of [SECRET_CONTENT, "swordfish", SECRET_QUERY, SECRET_TAG, TOKEN, id, "alice"]) expect(text, secret).not.toContain(secret);
  });

  it("an operator verb's sweep is one span named after the verb, with its report's counts", async () => {
    const run = await runEngram(["prune-expired", "--output", "json"], { ...server.storeEnv, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { found: number; dry_run: boolean };
    const sweep = await receiver.waitFor((s) => s.name === "engram prune-expired");
    expect(sweep.parentSpanId).toBe("");
    expect(sweep.attributes).toMatchObject({ "engram.operator.verb": "prune-expired", "engram.operator.found": report.found, "engram.operator.dry_run": true });
  });

  it("the receiver got the encoding the settings name", () => {
    expect(receiver.contentTypes.length).toBeGreaterThan(0);
    for (const type of receiver.contentTypes) expect(type).toMatch(protocol === "http/json" ? /^application\/json/ : /^application\/x-protobuf/);
  });
});

describe("a collector that cannot be reached", () => {
  let server: TestServer;

  beforeAll(async () => {
    // A port that was free a moment ago: nothing listens there.
    const gone = await startOtlpReceiver();
    await gone.close();
    server = await startTestServer({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${gone.url}/v1/traces` } });
  });

  afterAll(async () => {
    await server?.close();
  });

  it("never fails a request, and the spans it could not send are counted in /metrics", async () => {
    const c = server.client();
    for (let i = 0; i < 5; i++) {
      const { id } = await c.storeMemory({ content: `note ${i}`, scope: "repo:down", source: "user-said", category: "decision" });
      expect((await c.getMemory({ id })).memory?.id).toBe(id);
    }
    await flushTraces();
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const failed = Number(/^engram_trace_spans_dropped_total\{reason="export_failed"\} (\d+)$/m.exec(metrics)?.[1]);
    expect(failed).toBeGreaterThanOrEqual(10);
    expect(metrics).toMatch(/^engram_trace_spans_dropped_total\{reason="queue_full"\} 0$/m);
    expect(server.log.text()).toContain("trace export failed; spans are dropped until the collector answers");
  });
});

describe("the on-write summary queue", () => {
  let receiver: OtlpReceiver;
  let chat: FakeChat;
  let server: TestServer;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    chat = await startFakeChat();
    server = await startTestServer({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        ENGRAM_OPENAI_CHAT_BASE_URL: chat.url,
        ENGRAM_SUMMARY_MODEL: "summarizer-test",
        ENGRAM_SUMMARY_ON_WRITE: "true",
      },
    });
  });

  afterAll(async () => {
    await server?.close();
    await chat?.close();
    await receiver?.close();
  });

  it("makes each summary a trace of its own, linked to the write that queued it, with its outcome", async () => {
    const tp = traceparent();
    const c = createClient(EngramService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1", interceptors: [withHeaders({ traceparent: tp.header })] }));
    await c.storeMemory({ content: SECRET_CONTENT, scope: "repo:summary", source: "user-said", category: "decision" });
    await chat.received(1);
    const write = await receiver.waitFor((s) => s.traceId === tp.traceId && s.kind === SERVER);
    const summary = await receiver.waitFor((s) => s.name === "engram.summary" && s.attributes["engram.summary.outcome"] !== undefined);

    expect(summary.traceId).not.toBe(tp.traceId);
    expect(summary.parentSpanId).toBe("");
    expect(summary.links).toEqual([{ traceId: write.traceId, spanId: write.spanId }]);
    expect(summary.attributes["engram.summary.outcome"]).toBe("summarized");
    expect(everyText(receiver.spans)).not.toContain("swordfish");
  });
});
