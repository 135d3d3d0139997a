import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { codeLabel, type RequestObserver } from "./request-outcome.js";
import { SPAN_DROP_REASONS } from "./tracing.js";

/** What the gauges read at scrape time; each is optional so a test can leave parts out. */
export type MetricSources = {
  /** Embeddings waiting for a worker, and running now (the local model's bounded queue). */
  embedPressure?: () => { running: number; queued: number } | undefined;
  /** Records in the store, every owner counted. */
  storeRecords?: () => Promise<number>;
  /** The parts still warming up, as /readyz names them ("store", "index", "terms", "embedder"). */
  waiting?: () => readonly string[];
  /** The on-write summary queue: records waiting, and records offered since start by outcome (every outcome, 0 when no queue runs). */
  summaryQueue?: () => { length: number; outcomes: Readonly<Record<string, number>> };
  /** Finished spans that never reached the collector, by reason; absent while tracing is off. */
  traceDrops?: () => Readonly<Record<string, number>> | undefined;
};

/** The parts a ready gauge is exported for, always all of them so a dashboard sees 0 as well as 1. */
export const READY_PARTS = ["store", "index", "terms", "embedder"] as const;

/**
 * Latency buckets in seconds, from a cached lookup to a slow re-embedding
 * search; the response budget and request timeout put a ceiling near 30 s.
 */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type Metrics = {
  /** Counts and times one finished request. */
  observe: RequestObserver;
  /** Counts one refused credential by the lane it was routed to and its failure class (src/auth's words). */
  unauthenticated(lane: string, failureClass: string): void;
  /** The Prometheus text exposition. */
  render(): Promise<{ contentType: string; body: string }>;
};

/**
 * One registry per server, not prom-client's global one, so two servers in a
 * process (the tests) never share counters.
 */
export function createMetrics(sources: MetricSources = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: "engram_requests_total",
    help: "Requests answered, by lane (connect, mcp), procedure or tool, and code (ok or the Connect code).",
    labelNames: ["lane", "procedure", "code"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "engram_request_duration_seconds",
    help: "Time from the request's arrival to its answer, by lane and procedure or tool.",
    labelNames: ["lane", "procedure"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter({
    name: "engram_unauthenticated_total",
    help: "Requests refused for their credential (401, or 503 when the identity provider could not be reached), by lane (oidc, service, static, cookie, none) and class (missing, invalid, expired, wrong_audience, unknown_issuer, unavailable).",
    labelNames: ["lane", "class"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "engram_embed_queue_depth",
    help: "Embedding jobs waiting for a worker of the local model.",
    registers: [registry],
    collect() {
      this.set(sources.embedPressure?.()?.queued ?? 0);
    },
  });
  new Gauge({
    name: "engram_embed_running",
    help: "Embedding jobs running in the local model's workers now.",
    registers: [registry],
    collect() {
      this.set(sources.embedPressure?.()?.running ?? 0);
    },
  });
  new Gauge({
    name: "engram_store_records",
    help: "Records in the store, across every owner, archived and superseded included.",
    registers: [registry],
    async collect() {
      if (sources.storeRecords) this.set(await sources.storeRecords());
    },
  });
  new Gauge({
    name: "engram_ready",
    help: "1 when the part (store, index, embedder) is ready to serve, 0 while it warms up; /readyz says the same.",
    labelNames: ["part"] as const,
    registers: [registry],
    collect() {
      const waiting = new Set(sources.waiting?.() ?? []);
      for (const part of READY_PARTS) this.set({ part }, waiting.has(part) ? 0 : 1);
    },
  });

  new Gauge({
    name: "engram_summary_queue_depth",
    help: "Records waiting for an auto summary on the on-write queue (ENGRAM_SUMMARY_ON_WRITE).",
    registers: [registry],
    collect() {
      this.set(sources.summaryQueue?.().length ?? 0);
    },
  });
  new Counter({
    name: "engram_summary_queue_total",
    help: "Records offered to the on-write summary queue since start, by outcome: summarized, skipped (summarized or changed meanwhile), gone (deleted meanwhile), failed (the summarizer failed), dropped (the queue was full).",
    labelNames: ["outcome"] as const,
    registers: [registry],
    collect() {
      // The queue keeps the counts; each scrape copies them, every outcome present so a rate never starts from nothing.
      this.reset();
      for (const [outcome, n] of Object.entries(sources.summaryQueue?.().outcomes ?? {})) this.inc({ outcome }, n);
    },
  });

  new Counter({
    name: "engram_trace_spans_dropped_total",
    help: "Finished trace spans that never reached the collector, by reason: queue_full (2048 spans were waiting for export) or export_failed (the collector could not be reached or refused the batch). Always 0 while tracing is off.",
    labelNames: ["reason"] as const,
    registers: [registry],
    collect() {
      this.reset();
      const drops = sources.traceDrops?.();
      for (const reason of SPAN_DROP_REASONS) this.inc({ reason }, drops?.[reason] ?? 0);
    },
  });

  return {
    observe: (o) => {
      requests.inc({ lane: o.lane, procedure: o.procedure, code: codeLabel(o.code) });
      duration.observe({ lane: o.lane, procedure: o.procedure }, o.durationMs / 1000);
    },
    unauthenticated: (lane, failureClass) => refusals.inc({ lane, class: failureClass }),
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
