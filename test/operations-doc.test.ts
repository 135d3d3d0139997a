import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as auth from "../src/auth/index.js";
import { createMetrics, READY_PARTS, SPAN_DROP_REASONS, TRACE_PROTOCOLS, TRACE_SAMPLERS, TRACE_SETTINGS } from "../src/observe/index.js";

const ROOT = new URL("..", import.meta.url).pathname;
const doc = readFileSync(join(ROOT, "docs/operations.md"), "utf8");

describe("docs/operations.md", () => {
  it("documents exactly the engram_ metrics a server exports", async () => {
    const { body } = await createMetrics().render();
    const exported = [...body.matchAll(/^# TYPE (engram_\w+) (\w+)$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    const documented = [...doc.matchAll(/^\| `(engram_\w+)` \| (\w+) \|/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    expect(documented).toEqual(exported);
  });

  it("names every part the readiness gauge reports", () => {
    expect(doc).toContain(`\`part\` (${READY_PARTS.map((p) => `\`${p}\``).join(", ")})`);
  });

  it("lists in its Traces section exactly the variables the tracing settings read, with every protocol and sampler they take", () => {
    const traces = doc.slice(doc.indexOf("## Traces"), doc.indexOf("## Summaries"));
    const table = traces.slice(traces.indexOf("| Setting |"), traces.indexOf("\n\n", traces.indexOf("| Setting |")));
    const listed = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual([...TRACE_SETTINGS]);
    for (const p of TRACE_PROTOCOLS) expect(table).toContain(`\`${p}\``);
    for (const sampler of TRACE_SAMPLERS) expect(table).toContain(`\`${sampler}\``);
    const row = doc.split("\n").find((l) => l.startsWith("| `engram_trace_spans_dropped_total` |"))!;
    for (const reason of SPAN_DROP_REASONS) expect(row).toContain(`\`${reason}\``);
  });

  it("names in its Identity section every variable the bearer lanes and console sign-in read, and every 401 lane and class", () => {
    const identity = doc.slice(doc.indexOf("## Identity"), doc.indexOf("## Probes"));
    const variables = Object.entries(auth)
      .filter(([name, value]) => name.endsWith("_ENV") && typeof value === "string")
      .map(([, value]) => value as string)
      .filter((v) => v !== auth.MCP_OWNER_ENV);
    expect(variables.length).toBeGreaterThan(12);
    for (const v of variables) expect(identity, v).toContain(`\`${v}\``);
    const row = doc.split("\n").find((l) => l.startsWith("| `engram_unauthenticated_total` |"))!;
    for (const lane of auth.AUTH_LANES) expect(row).toContain(`\`${lane}\``);
    for (const cls of Object.keys(auth.AUTH_FAILURES)) expect(row).toContain(`\`${cls}\``);
  });
});
