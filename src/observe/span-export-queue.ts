import type { Context } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { SpanDropReason } from "./tracing.js";

const SAMPLED = 1;

/**
 * Counts what the batch processor would lose silently. Spans waiting or
 * being sent are counted in `pending`; one finished while `limit` are
 * pending is dropped here, before the processor sees it (its own queue has
 * the same bound, so it never drops on its own), and a batch the exporter
 * could not deliver is counted as dropped once its attempt is over.
 * Nothing here waits: a collector that cannot be reached costs a request
 * nothing but its spans.
 */
export class SpanExportQueue {
  readonly dropped: Record<SpanDropReason, number> = { queue_full: 0, export_failed: 0 };
  private pending = 0;

  constructor(
    readonly limit: number,
    private readonly onExport: (ok: boolean, error: Error | undefined) => void,
  ) {}

  /** The processor in front of the batch processor. */
  processor(inner: SpanProcessor): SpanProcessor {
    return {
      onStart: (span: Span, parent: Context) => inner.onStart(span, parent),
      onEnd: (span: ReadableSpan) => {
        if ((span.spanContext().traceFlags & SAMPLED) === 0) return;
        if (this.pending >= this.limit) {
          this.dropped.queue_full++;
          return;
        }
        this.pending++;
        inner.onEnd(span);
      },
      forceFlush: () => inner.forceFlush(),
      shutdown: () => inner.shutdown(),
    };
  }

  /** The exporter behind the batch processor. */
  exporter(inner: SpanExporter): SpanExporter {
    return {
      export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => {
        let settled = false;
        inner.export(spans, (result) => {
          if (!settled) {
            settled = true;
            this.pending = Math.max(0, this.pending - spans.length);
            const ok = result.code === ExportResultCode.SUCCESS;
            if (!ok) this.dropped.export_failed += spans.length;
            this.onExport(ok, result.error);
          }
          done(result);
        });
      },
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
    };
  }
}
