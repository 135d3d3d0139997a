/**
 * The tracing port every layer below the lanes speaks (the core, the
 * embedders, the stores, the operator sweeps), with no tracing library
 * behind it until src/observe installs one. Until then, and whenever the
 * OTEL_* settings leave tracing off, `traced` only calls its function: no
 * tracing module is loaded and nothing is allocated for a span.
 *
 * A span here never carries a caller's value: names are fixed words, and
 * attributes are counts, durations, flags and fixed words only.
 */
export type SpanValue = string | number | boolean;
export type SpanAttributes = Readonly<Record<string, SpanValue>>;

/** What a traced function may add to its own span while it runs. */
export type SpanNotes = { set(key: string, value: SpanValue): void };

/** The trace a piece of work belonged to, carried opaquely to work done later on its behalf. */
export type TraceContext = { readonly trace: unknown };

export type SpanOptions = {
  attributes?: SpanAttributes;
  /** `client` for a request leaving the process (a Qdrant call); `internal` otherwise. */
  kind?: "internal" | "client";
  /**
   * A span that may start a trace of its own (an operator sweep, a background
   * summary). Any other span is made only inside a traced request or sweep,
   * so a probe or a scrape never starts a trace.
   */
  root?: boolean;
  /** Work done later for another trace (the summary queue): linked to it, not its child. */
  follows?: TraceContext;
};

export type TraceHook = {
  span<T>(name: string, fn: (notes: SpanNotes) => Promise<T>, options?: SpanOptions): Promise<T>;
  /** Sets an attribute on the span running now, if any. */
  note(key: string, value: SpanValue): void;
  /** The trace running now, if any. */
  capture(): TraceContext | undefined;
};

const NO_NOTES: SpanNotes = { set() {} };

let hook: TraceHook | undefined;

/** Installed by src/observe when tracing starts; undefined again when it stops. */
export function setTraceHook(h: TraceHook | undefined): void {
  hook = h;
}

export function tracingOn(): boolean {
  return hook !== undefined;
}

/** Runs `fn` in a span of its own when tracing is on; otherwise only runs it. */
export function traced<T>(name: string, fn: (notes: SpanNotes) => Promise<T>, options?: SpanOptions): Promise<T> {
  return hook === undefined ? fn(NO_NOTES) : hook.span(name, fn, options);
}

export function noteOnSpan(key: string, value: SpanValue): void {
  hook?.note(key, value);
}

export function traceContext(): TraceContext | undefined {
  return hook?.capture();
}
