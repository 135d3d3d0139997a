import type { Code } from "@connectrpc/connect";

/** How a call came in: the Connect protocol, gRPC, gRPC-Web, or an MCP tools/call. */
export type CallProtocol = "connect" | "grpc" | "grpc-web" | "mcp";

export type CallStart = {
  protocol: CallProtocol;
  /** The RPC's service (engram.v1.EngramService); for MCP, the server's name. */
  service: string;
  /** The RPC method's name or the MCP tool's name. */
  procedure: string;
  /** The request's headers, for a caller's W3C traceparent and tracestate; nothing else is read. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The bearer lane the caller was admitted by (src/auth's AuthLane), never the token or the owner. */
  authLane?: string;
};

/** How the call ended: the code the caller got and, for a rejection, its hint and fields. */
export type CallEnd = { code: Code | "ok"; hint?: string; fields?: readonly string[] };

/** One call's server span: what runs inside `run` is its child work; `end` closes it once, with the outcome. */
export type CallSpan = {
  run<T>(fn: () => T): T;
  end(outcome: CallEnd): void;
};

export type CallTracer = (start: CallStart) => CallSpan;

let tracer: CallTracer | undefined;

/** Installed when tracing starts (tracing.ts); undefined again when it stops. */
export function setCallTracer(t: CallTracer | undefined): void {
  tracer = t;
}

/**
 * The one function a lane calls per call: a server span continuing the
 * caller's trace, or undefined when tracing is off, in which case the lane
 * runs exactly as it would without tracing. `start` is asked only when
 * tracing is on, so an untraced call builds nothing for it.
 */
export function callSpan(start: () => CallStart): CallSpan | undefined {
  return tracer === undefined ? undefined : tracer(start());
}
