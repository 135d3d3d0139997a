/**
 * The OpenTelemetry SDK behind the tracing port. This is the one module that
 * imports @opentelemetry/* (besides types), and it is loaded only by
 * startTracing when the OTEL_* settings turn tracing on: with them unset, no
 * SDK module is ever loaded.
 *
 * Nothing is registered globally (no global tracer provider, context
 * manager or propagator): spans are started from this module's own tracer
 * with an explicit parent, so two servers in one process (the tests) and any
 * library's own use of the OpenTelemetry API never meet.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from "@opentelemetry/sdk-trace-base";
import { Code } from "@connectrpc/connect";
import pkg from "../../package.json" with { type: "json" };
import type { SpanNotes, TraceContext, TraceHook } from "../model/trace-hook.js";
import type { CallSpan, CallStart, CallTracer } from "./call-span.js";
import { codeLabel } from "./request-outcome.js";
import { SpanExportQueue } from "./span-export-queue.js";
import { TRACE_QUEUE_SIZE, type TraceSettings } from "./trace-settings.js";

export type Otel = {
  hook: TraceHook;
  call: CallTracer;
  queue: SpanExportQueue;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
};

/** Codes that are the server's failure, not the caller's (the RPC conventions' server-span rule): the span's status is an error. */
const SERVER_FAULTS: ReadonlySet<Code> = new Set([Code.Unknown, Code.DeadlineExceeded, Code.Unimplemented, Code.Internal, Code.Unavailable, Code.DataLoss]);

const NO_NOTES: SpanNotes = { set() {} };

function samplerOf(s: TraceSettings): Sampler {
  switch (s.sampler) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(s.ratio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(s.ratio) });
  }
}

/** An error as a span may name it: its class only, never its message. */
function errorType(err: unknown): string {
  return err instanceof Error ? err.name : "unknown";
}

function notesOf(span: Span): SpanNotes {
  return { set: (key, value) => span.setAttribute(key, value) };
}

export function startOtel(settings: TraceSettings, exportTimeoutMs: number | undefined, onExport: (ok: boolean, error: Error | undefined) => void): Otel {
  const queue = new SpanExportQueue(TRACE_QUEUE_SIZE, onExport);
  const config = { url: settings.endpoint, ...(exportTimeoutMs !== undefined ? { timeoutMillis: exportTimeoutMs } : {}) };
  const exporter = settings.protocol === "http/json" ? new JsonTraceExporter(config) : new ProtobufTraceExporter(config);
  const batches = new BatchSpanProcessor(queue.exporter(exporter), { maxQueueSize: TRACE_QUEUE_SIZE, maxExportBatchSize: 512, scheduledDelayMillis: 1000 });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ ...settings.resource, "service.name": settings.serviceName, "service.version": pkg.version }),
    sampler: samplerOf(settings),
    spanProcessors: [queue.processor(batches)],
  });
  const tracer = provider.getTracer("engram", pkg.version);
  const contexts = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();

  const hook: TraceHook = {
    span(name, fn, options) {
      const active = contexts.active();
      const parent = trace.getSpan(active);
      const root = options?.root === true && parent === undefined;
      // A store read outside any request (a probe, a scrape, the warm-up) starts no trace of its own.
      if (!root && (parent === undefined || !parent.isRecording())) return fn(NO_NOTES);
      const follows = options?.follows?.trace as ReturnType<Span["spanContext"]> | undefined;
      const span = tracer.startSpan(
        name,
        {
          kind: options?.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
          ...(options?.attributes ? { attributes: options.attributes as Attributes } : {}),
          ...(follows ? { links: [{ context: follows }] } : {}),
        },
        root ? ROOT_CONTEXT : active,
      );
      return contexts.with(trace.setSpan(active, span), async () => {
        try {
          return await fn(notesOf(span));
        } catch (err) {
          span.setAttribute("error.type", errorType(err));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw err;
        } finally {
          span.end();
        }
      });
    },
    note(key, value) {
      trace.getSpan(contexts.active())?.setAttribute(key, value);
    },
    capture(): TraceContext | undefined {
      const span = trace.getSpan(contexts.active());
      return span?.isRecording() ? { trace: span.spanContext() } : undefined;
    },
  };

  const call: CallTracer = (start: CallStart): CallSpan => {
    const parent: Context = start.headers ? propagator.extract(ROOT_CONTEXT, start.headers, defaultTextMapGetter) : ROOT_CONTEXT;
    const mcp = start.protocol === "mcp";
    const attributes: Attributes = mcp
      ? {
          "rpc.system": "jsonrpc",
          "rpc.jsonrpc.version": "2.0",
          "rpc.method": "tools/call",
          "mcp.method.name": "tools/call",
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": start.procedure,
        }
      : {
          "rpc.system": start.protocol === "connect" ? "connect_rpc" : "grpc",
          "rpc.service": start.service,
          "rpc.method": start.procedure,
        };
    attributes["engram.protocol"] = start.protocol;
    if (start.authLane !== undefined) attributes["engram.auth.lane"] = start.authLane;
    const span = tracer.startSpan(mcp ? `tools/call ${start.procedure}` : `${start.service}/${start.procedure}`, { kind: SpanKind.SERVER, attributes }, parent);
    const ctx = trace.setSpan(parent, span);
    let ended = false;
    return {
      run: (fn) => contexts.with(ctx, fn),
      end(outcome) {
        if (ended) return;
        ended = true;
        const label = codeLabel(outcome.code);
        span.setAttribute("engram.code", label);
        if (start.protocol === "connect" && outcome.code !== "ok") span.setAttribute("rpc.connect_rpc.error_code", label);
        if (start.protocol === "grpc" || start.protocol === "grpc-web") span.setAttribute("rpc.grpc.status_code", outcome.code === "ok" ? 0 : outcome.code);
        if (outcome.hint !== undefined) span.setAttribute("engram.refusal.hint", outcome.hint);
        if (outcome.fields !== undefined && outcome.fields.length > 0) span.setAttribute("engram.refusal.field", outcome.fields.join(","));
        if (outcome.code !== "ok" && SERVER_FAULTS.has(outcome.code)) span.setStatus({ code: SpanStatusCode.ERROR, message: label });
        span.end();
      },
    };
  };

  return {
    hook,
    call,
    queue,
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      contexts.disable();
    },
  };
}
