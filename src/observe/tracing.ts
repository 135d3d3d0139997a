import { setTraceHook } from "../model/trace-hook.js";
import type { Logger } from "../model/logger.js";
import { setCallTracer } from "./call-span.js";
import { traceSettingsFromEnv, type TraceSettings } from "./trace-settings.js";

/** Why a finished span never reached the collector: the export queue was full, or the collector did not take its batch. */
export const SPAN_DROP_REASONS = ["queue_full", "export_failed"] as const;
export type SpanDropReason = (typeof SPAN_DROP_REASONS)[number];

/** Spans lost so far, by reason, for /metrics. */
export type SpanDrops = Readonly<Record<SpanDropReason, number>>;

export type Tracing = {
  settings: TraceSettings;
  drops(): SpanDrops;
  /** Sends what waits now (tests, and the end of an operator verb). */
  flush(): Promise<void>;
  /** Sends what waits, then stops tracing for this holder; the last holder's stop turns it off. */
  shutdown(): Promise<void>;
};

type Running = { settings: TraceSettings; holders: number; drops(): SpanDrops; flush(): Promise<void>; stop(): Promise<void> };

let running: Promise<Running> | undefined;

/** `exportTimeoutMs`: how long one export may take, retries included; the exporter's own default (10 s) when absent. */
export type TracingOptions = { exportTimeoutMs?: number };

async function start(settings: TraceSettings, log: Logger, opts: TracingOptions): Promise<Running> {
  // Loaded here and only here: with tracing off, no OpenTelemetry module is ever imported.
  const { startOtel } = await import("./otel-sdk.js");
  let failing = false;
  const otel = startOtel(settings, opts.exportTimeoutMs, (ok, error) => {
    // One line per run of failures, so a collector that is down is said once, not once a second.
    if (!ok && !failing) {
      log.warn("trace export failed; spans are dropped until the collector answers (engram_trace_spans_dropped_total)", {
        endpoint: new URL(settings.endpoint).origin,
        error: error ? `${error.name}: ${error.message}` : "unknown",
      });
    } else if (ok && failing) {
      log.info("trace export recovered", { endpoint: new URL(settings.endpoint).origin });
    }
    failing = !ok;
  });
  setTraceHook(otel.hook);
  setCallTracer(otel.call);
  log.info("tracing on", { endpoint: new URL(settings.endpoint).origin, protocol: settings.protocol, sampler: settings.sampler, service_name: settings.serviceName });
  return {
    settings,
    holders: 0,
    drops: () => ({ ...otel.queue.dropped }),
    // A batch the collector did not take is already counted and logged; flushing never fails its caller.
    flush: () => otel.flush().catch(() => undefined),
    stop: async () => {
      setTraceHook(undefined);
      setCallTracer(undefined);
      // Spans the collector did not take are counted already; stopping never fails the server or the verb.
      await otel.shutdown().catch(() => undefined);
    },
  };
}

/**
 * Starts tracing when the OTEL_* settings ask for it; undefined when they do
 * not (nothing is loaded then). One SDK per process: a second holder (two
 * servers in one test process) shares the first one's.
 */
export async function startTracing(env: NodeJS.ProcessEnv, log: Logger, opts: TracingOptions = {}): Promise<Tracing | undefined> {
  const settings = traceSettingsFromEnv(env);
  if (settings === undefined) return undefined;
  running ??= start(settings, log, opts);
  const r = await running;
  r.holders++;
  let stopped = false;
  return {
    settings: r.settings,
    drops: r.drops,
    flush: r.flush,
    shutdown: async () => {
      if (stopped) return;
      stopped = true;
      if (--r.holders > 0) {
        await r.flush();
        return;
      }
      running = undefined;
      await r.stop();
    },
  };
}

/** Sends the spans waiting for export now, when tracing is on. */
export async function flushTraces(): Promise<void> {
  if (running) await (await running).flush();
}
