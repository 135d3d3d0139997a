/**
 * The OpenTelemetry settings engram reads, by their standard names. Tracing
 * is on only when an OTLP endpoint is set and OTEL_SDK_DISABLED is not true;
 * a value engram cannot honour stops the start instead of being ignored.
 * Empty counts as unset, as for every engram setting.
 */
export const OTEL_ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT";
export const OTEL_TRACES_ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
export const OTEL_PROTOCOL_ENV = "OTEL_EXPORTER_OTLP_PROTOCOL";
export const OTEL_TRACES_PROTOCOL_ENV = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL";
export const OTEL_SERVICE_NAME_ENV = "OTEL_SERVICE_NAME";
export const OTEL_RESOURCE_ATTRIBUTES_ENV = "OTEL_RESOURCE_ATTRIBUTES";
export const OTEL_TRACES_SAMPLER_ENV = "OTEL_TRACES_SAMPLER";
export const OTEL_TRACES_SAMPLER_ARG_ENV = "OTEL_TRACES_SAMPLER_ARG";
export const OTEL_SDK_DISABLED_ENV = "OTEL_SDK_DISABLED";

/** Every variable the tracing settings read, in the order docs/operations.md lists them. */
export const TRACE_SETTINGS = [
  OTEL_ENDPOINT_ENV,
  OTEL_TRACES_ENDPOINT_ENV,
  OTEL_PROTOCOL_ENV,
  OTEL_TRACES_PROTOCOL_ENV,
  OTEL_SERVICE_NAME_ENV,
  OTEL_RESOURCE_ATTRIBUTES_ENV,
  OTEL_TRACES_SAMPLER_ENV,
  OTEL_TRACES_SAMPLER_ARG_ENV,
  OTEL_SDK_DISABLED_ENV,
] as const;

export const TRACE_PROTOCOLS = ["http/protobuf", "http/json"] as const;
export type TraceProtocol = (typeof TRACE_PROTOCOLS)[number];

export const TRACE_SAMPLERS = ["parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio", "always_on", "always_off", "traceidratio"] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

/** Spans that may wait for export; one more is dropped and counted (engram_trace_spans_dropped_total). */
export const TRACE_QUEUE_SIZE = 2048;

export const DEFAULT_SERVICE_NAME = "engram";

export type TraceSettings = {
  /** Where spans are posted, the signal path included. */
  endpoint: string;
  protocol: TraceProtocol;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded; service.name is OTEL_SERVICE_NAME's when both are set. */
  resource: Readonly<Record<string, string>>;
  sampler: TraceSampler;
  /** The ratio of the ratio samplers, 0 to 1. */
  ratio: number;
};

function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

function httpUrl(name: string, value: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) throw new Error(`${name} must be an absolute http:// or https:// URL`);
  return url;
}

/** The base endpoint's traces path, as the OTLP exporter specification appends it. */
function tracesPath(base: URL): string {
  const path = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
  return `${base.origin}${path}v1/traces${base.search}`;
}

function protocolOf(env: NodeJS.ProcessEnv): TraceProtocol {
  const name = setting(env, OTEL_TRACES_PROTOCOL_ENV) !== undefined ? OTEL_TRACES_PROTOCOL_ENV : OTEL_PROTOCOL_ENV;
  const value = setting(env, name) ?? "http/protobuf";
  if ((TRACE_PROTOCOLS as readonly string[]).includes(value)) return value as TraceProtocol;
  if (value === "grpc") {
    throw new Error(`${name}=grpc is not supported: engram exports traces over OTLP/HTTP only (its gRPC exporter needs a package with an install script); set ${name} to http/protobuf or http/json and point the endpoint at the collector's OTLP/HTTP port (4318)`);
  }
  throw new Error(`${name} must be one of ${TRACE_PROTOCOLS.join(", ")}`);
}

function samplerOf(env: NodeJS.ProcessEnv): { sampler: TraceSampler; ratio: number } {
  const value = setting(env, OTEL_TRACES_SAMPLER_ENV) ?? "parentbased_always_on";
  if (!(TRACE_SAMPLERS as readonly string[]).includes(value)) throw new Error(`${OTEL_TRACES_SAMPLER_ENV} must be one of ${TRACE_SAMPLERS.join(", ")}`);
  const arg = setting(env, OTEL_TRACES_SAMPLER_ARG_ENV);
  const ratio = arg === undefined ? 1 : Number(arg);
  if (!/ratio$/.test(value)) return { sampler: value as TraceSampler, ratio: 1 };
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new Error(`${OTEL_TRACES_SAMPLER_ARG_ENV} must be a number from 0 to 1 with ${OTEL_TRACES_SAMPLER_ENV}=${value}`);
  return { sampler: value as TraceSampler, ratio };
}

/** `key=value,key=value`, each part percent-encoded (W3C Baggage's octets). */
function resourceOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const raw = setting(env, OTEL_RESOURCE_ATTRIBUTES_ENV);
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  for (const part of raw.split(",")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    let key: string | undefined;
    let value: string | undefined;
    try {
      key = eq > 0 ? decodeURIComponent(part.slice(0, eq).trim()) : undefined;
      value = eq > 0 ? decodeURIComponent(part.slice(eq + 1).trim()) : undefined;
    } catch {
      key = undefined;
    }
    if (key === undefined || key === "" || value === undefined) throw new Error(`${OTEL_RESOURCE_ATTRIBUTES_ENV} must be a comma-separated list of key=value pairs, each percent-encoded`);
    out[key] = value;
  }
  return out;
}

/**
 * What the environment asks of tracing: undefined when it is off (no
 * endpoint, or OTEL_SDK_DISABLED=true). Throws, naming the variable, on a
 * value it cannot honour; checked before anything opens.
 */
export function traceSettingsFromEnv(env: NodeJS.ProcessEnv): TraceSettings | undefined {
  if (/^true$/i.test(setting(env, OTEL_SDK_DISABLED_ENV) ?? "")) return undefined;
  const signal = setting(env, OTEL_TRACES_ENDPOINT_ENV);
  const base = setting(env, OTEL_ENDPOINT_ENV);
  if (signal === undefined && base === undefined) return undefined;
  const endpoint = signal !== undefined ? httpUrl(OTEL_TRACES_ENDPOINT_ENV, signal).href : tracesPath(httpUrl(OTEL_ENDPOINT_ENV, base!));
  const protocol = protocolOf(env);
  const resource = resourceOf(env);
  const serviceName = setting(env, OTEL_SERVICE_NAME_ENV) ?? resource["service.name"] ?? DEFAULT_SERVICE_NAME;
  return { endpoint, protocol, serviceName, resource, ...samplerOf(env) };
}
