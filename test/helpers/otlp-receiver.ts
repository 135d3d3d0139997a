/**
 * A tiny OTLP/HTTP trace receiver on a loopback port: it takes what an
 * exporter posts to /v1/traces, in either encoding (http/protobuf decoded
 * with the protobuf wire reader, http/json as JSON), and keeps every span as
 * plain data for a test to look at.
 */
import { createServer, type Server } from "node:http";
import { BinaryReader } from "@bufbuild/protobuf/wire";

export type AttributeValue = string | number | boolean;

export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttributeValue>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  links: { traceId: string; spanId: string }[];
  resource: Record<string, AttributeValue>;
};

export type OtlpReceiver = {
  url: string;
  spans: ReceivedSpan[];
  /** The content types of the posts received, in order. */
  contentTypes: string[];
  /** Resolves once a span matching `pick` has arrived. */
  waitFor(pick: (s: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
};

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** Reads a length-delimited message's fields, calling `on` for each until its end. */
function fields(bytes: Uint8Array, on: (no: number, r: BinaryReader, wire: number) => boolean): void {
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    if (!on(no, r, wire)) r.skip(wire);
  }
}

function anyValue(bytes: Uint8Array): AttributeValue {
  let v: AttributeValue = "";
  fields(bytes, (no, r) => {
    if (no === 1) v = r.string();
    else if (no === 2) v = r.bool();
    else if (no === 3) v = Number(r.int64());
    else if (no === 4) v = r.double();
    else return false;
    return true;
  });
  return v;
}

function keyValue(bytes: Uint8Array, into: Record<string, AttributeValue>): void {
  let key = "";
  let value: AttributeValue = "";
  fields(bytes, (no, r) => {
    if (no === 1) key = r.string();
    else if (no === 2) value = anyValue(r.bytes());
    else return false;
    return true;
  });
  into[key] = value;
}

function protobufSpan(bytes: Uint8Array, resource: Record<string, AttributeValue>): ReceivedSpan {
  const s: ReceivedSpan = { traceId: "", spanId: "", parentSpanId: "", name: "", kind: 0, startNs: 0n, endNs: 0n, attributes: {}, status: 0, links: [], resource };
  fields(bytes, (no, r) => {
    if (no === 1) s.traceId = hex(r.bytes());
    else if (no === 2) s.spanId = hex(r.bytes());
    else if (no === 4) s.parentSpanId = hex(r.bytes());
    else if (no === 5) s.name = r.string();
    else if (no === 6) s.kind = r.int32();
    else if (no === 7) s.startNs = BigInt(r.fixed64());
    else if (no === 8) s.endNs = BigInt(r.fixed64());
    else if (no === 9) keyValue(r.bytes(), s.attributes);
    else if (no === 13) {
      const link = { traceId: "", spanId: "" };
      fields(r.bytes(), (lno, lr) => {
        if (lno === 1) link.traceId = hex(lr.bytes());
        else if (lno === 2) link.spanId = hex(lr.bytes());
        else return false;
        return true;
      });
      s.links.push(link);
    } else if (no === 15) {
      fields(r.bytes(), (sno, sr) => {
        if (sno !== 3) return false;
        s.status = sr.int32();
        return true;
      });
    } else return false;
    return true;
  });
  return s;
}

/** ExportTraceServiceRequest → ResourceSpans → (Resource, ScopeSpans → Span). */
function decodeProtobuf(body: Uint8Array): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  fields(body, (no, r) => {
    if (no !== 1) return false;
    const resource: Record<string, AttributeValue> = {};
    const scopes: Uint8Array[] = [];
    fields(r.bytes(), (rno, rr) => {
      if (rno === 1) fields(rr.bytes(), (ano, ar) => (ano === 1 ? (keyValue(ar.bytes(), resource), true) : false));
      else if (rno === 2) scopes.push(rr.bytes());
      else return false;
      return true;
    });
    for (const scope of scopes) fields(scope, (sno, sr) => (sno === 2 ? (out.push(protobufSpan(sr.bytes(), resource)), true) : false));
    return true;
  });
  return out;
}

type JsonValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
type JsonKeyValue = { key: string; value: JsonValue };

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? ""));
  }
  return out;
}

type JsonSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: JsonKeyValue[];
  status?: { code?: number };
  links?: { traceId: string; spanId: string }[];
};

function decodeJson(body: Uint8Array): ReceivedSpan[] {
  const doc = JSON.parse(Buffer.from(body).toString("utf8")) as {
    resourceSpans?: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: { spans?: JsonSpan[] }[] }[];
  };
  return (doc.resourceSpans ?? []).flatMap((rs) => {
    const resource = jsonAttributes(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? "",
        name: s.name,
        kind: s.kind,
        startNs: BigInt(s.startTimeUnixNano),
        endNs: BigInt(s.endTimeUnixNano),
        attributes: jsonAttributes(s.attributes),
        status: s.status?.code ?? 0,
        links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        resource,
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const type = req.headers["content-type"] ?? "";
      contentTypes.push(type);
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      const body = new Uint8Array(Buffer.concat(chunks));
      spans.push(...(type.startsWith("application/json") ? decodeJson(body) : decodeProtobuf(body)));
      for (const w of waiters) w();
      // An empty ExportTraceServiceResponse: a full success in either encoding.
      if (type.startsWith("application/json")) res.writeHead(200, { "content-type": "application/json" }).end("{}");
      else res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    waitFor(pick, timeoutMs = 20_000) {
      const found = spans.find(pick);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching span arrived; received: ${spans.map((s) => s.name).join(", ") || "none"}`));
        }, timeoutMs);
        const check = (): void => {
          const s = spans.find(pick);
          if (!s) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(s);
        };
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The spans of one trace as an indented tree with durations, children in start order. */
export function spanTree(spans: readonly ReceivedSpan[], traceId: string): string {
  const mine = spans.filter((s) => s.traceId === traceId).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const ids = new Set(mine.map((s) => s.spanId));
  const lines: string[] = [];
  const walk = (s: ReceivedSpan, depth: number): void => {
    const ms = Number(s.endNs - s.startNs) / 1e6;
    const attrs = Object.entries(s.attributes)
      .filter(([k]) => k.startsWith("engram.") || k === "rpc.method" || k === "rpc.system" || k === "gen_ai.tool.name" || k === "db.operation.name")
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(" ");
    lines.push(`${"  ".repeat(depth)}${s.name}  ${ms.toFixed(3)} ms${attrs ? `  [${attrs}]` : ""}`);
    for (const c of mine.filter((x) => x.parentSpanId === s.spanId)) walk(c, depth + 1);
  };
  for (const root of mine.filter((s) => !ids.has(s.parentSpanId))) walk(root, 0);
  return lines.join("\n");
}
