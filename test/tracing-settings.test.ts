/**
 * What the OTEL_* settings turn on, what they refuse, and that with tracing
 * off no OpenTelemetry code is loaded at all.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { traceSettingsFromEnv } from "../src/observe/index.js";
import { runEngram } from "./helpers/run-engram.js";

const PROBE = fileURLToPath(new URL("./fixtures/module-probe.mjs", import.meta.url));

describe("the tracing settings", () => {
  it("leave tracing off when no OTLP endpoint is set, and when OTEL_SDK_DISABLED is true", () => {
    expect(traceSettingsFromEnv({})).toBeUndefined();
    expect(traceSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBeUndefined();
    expect(traceSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
  });

  it("post to the base endpoint's /v1/traces, or to the traces endpoint exactly as given, over http/protobuf unless told otherwise", () => {
    expect(traceSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toMatchObject({ endpoint: "http://collector:4318/v1/traces", protocol: "http/protobuf" });
    expect(traceSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example.com/prefix/" })?.endpoint).toBe("https://otlp.example.com/prefix/v1/traces");
    expect(
      traceSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://other:9999/custom", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }),
    ).toMatchObject({ endpoint: "http://other:9999/custom", protocol: "http/json" });
  });

  it("name the service engram unless OTEL_SERVICE_NAME or the resource attributes say otherwise, and sample parent-based always-on by default", () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(traceSettingsFromEnv(on)).toMatchObject({ serviceName: "engram", sampler: "parentbased_always_on", ratio: 1 });
    expect(traceSettingsFromEnv({ ...on, OTEL_RESOURCE_ATTRIBUTES: "service.name=memory,region=eu%2Cwest" })).toMatchObject({ serviceName: "memory", resource: { region: "eu,west" } });
    expect(traceSettingsFromEnv({ ...on, OTEL_SERVICE_NAME: "mine", OTEL_RESOURCE_ATTRIBUTES: "service.name=memory" })?.serviceName).toBe("mine");
    expect(traceSettingsFromEnv({ ...on, OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" })).toMatchObject({ sampler: "parentbased_traceidratio", ratio: 0.25 });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, /^OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: .*set OTEL_EXPORTER_OTLP_PROTOCOL to http\/protobuf or http\/json/],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" }, /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" }, /^OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json$/],
    [{ OTEL_TRACES_SAMPLER: "jaeger_remote" }, /^OTEL_TRACES_SAMPLER must be one of /],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" }, /^OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ OTEL_RESOURCE_ATTRIBUTES: "novalue" }, /^OTEL_RESOURCE_ATTRIBUTES must be a comma-separated list of key=value pairs/],
  ])("refuse %o with a line naming the variable", (extra, line) => {
    expect(() => traceSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", ...extra })).toThrow(line);
  });

  it("stop `engram serve` with exit 2 before anything opens when the protocol is grpc", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-otel-"));
    try {
      const run = await runEngram(["serve", "--listen-addr", "127.0.0.1:0"], { ENGRAM_DATA_DIR: dir, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("with tracing off", () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-otel-probe-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The built files an operator verb loads, and whether any of them holds the OpenTelemetry SDK. */
  async function loadsSdk(env: Record<string, string>): Promise<{ loaded: number; sdk: boolean }> {
    const run = await runEngram(["prune-expired", "--output", "json"], { ENGRAM_DATA_DIR: dir, NODE_OPTIONS: `--import=${PROBE}`, ...env });
    const files = [...run.stderr.matchAll(/^module-loaded (file:\S+\/dist\/\S+\.js)$/gm)].map((m) => fileURLToPath(m[1]!));
    return { loaded: files.length, sdk: files.some((f) => readFileSync(f, "utf8").includes("OTLPTraceExporter")) };
  }

  it("no OpenTelemetry code is loaded, while the same verb with an endpoint set loads the SDK", async () => {
    const off = await loadsSdk({});
    expect(off.loaded).toBeGreaterThan(0);
    expect(off.sdk).toBe(false);
    const on = await loadsSdk({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    expect(on.sdk).toBe(true);
  });
});
