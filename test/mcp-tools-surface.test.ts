/**
 * The MCP tool lane's advertised surface over an in-memory transport: the
 * names, annotations, descriptions and schemas a client lists are bound to
 * the tool table and to the tool docs (docs/tools.md and the two pages of
 * tool sections it links) in both directions, so neither can
 * drift from the code. What a call answers is mcp-tools-calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RULES } from "../src/argerror/index.js";
import { DEFAULT_LIMITS, LANE_POLICY } from "../src/core/index.js";
import {
  CONTRACT_CAPABILITY,
  CONTRACT_VERSION,
  SERVER_NAME,
  TOOL_NAMES,
  TOOL_TABLE,
  annotationsOf,
  handlerOf,
} from "../src/mcp/index.js";
import pkg from "../package.json" with { type: "json" };
import { readDoc, TOOL_DOC_PAGES, TOOL_DOCS } from "./helpers/doc-pages.js";
import { inMemoryMcp, tableAfter, type InMemoryMcp } from "./fixtures/mcp-harness.js";

const DOC = TOOL_DOCS;

/** The `## \`name\`` sections of the tool docs, keyed by tool name. */
function docSections(): Map<string, { heading: string; body: string }> {
  const out = new Map<string, { heading: string; body: string }>();
  const parts = DOC.split(/^## /m).slice(1);
  for (const p of parts) {
    const heading = p.split("\n", 1)[0]!;
    const m = /^`([a-z_]+)`/.exec(heading);
    if (m) out.set(m[1]!, { heading, body: p });
  }
  return out;
}

describe("the advertised tool surface", () => {
  let mcp: InMemoryMcp;
  let tools: Awaited<ReturnType<InMemoryMcp["client"]["listTools"]>>["tools"];
  beforeAll(async () => {
    mcp = await inMemoryMcp();
    tools = (await mcp.client.listTools()).tools;
  });
  afterAll(async () => mcp.close());

  it("lists exactly the tools of the table, in table order", () => {
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
  });

  it("has twenty tools in the table", () => {
    expect(TOOL_NAMES).toHaveLength(21);
  });

  it("gives every tool the table's annotations with openWorldHint false", () => {
    for (const t of tools) {
      const name = t.name as keyof typeof TOOL_TABLE;
      expect(t.annotations, t.name).toEqual({ ...TOOL_TABLE[name], openWorldHint: false });
      expect(t.annotations?.openWorldHint, t.name).toBe(false);
    }
  });

  it("gives every tool a description of at most 2048 bytes", () => {
    for (const t of tools) {
      expect(t.description, t.name).toBeTruthy();
      expect(Buffer.byteLength(t.description!, "utf8"), t.name).toBeLessThanOrEqual(2048);
    }
  });

  it("declares no required argument in any input schema", () => {
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.inputSchema.required ?? [], t.name).toEqual([]);
    }
  });

  it("warns in store_memory's description against transient state, secrets and timestamps", () => {
    const d = tools.find((t) => t.name === "store_memory")!.description!;
    expect(d).toMatch(/transient state/);
    expect(d).toMatch(/secrets/);
    expect(d).toMatch(/timestamps/);
  });

  it("states the scope rule in the words of the rule table on every tool that has it", () => {
    const sentence = RULES["scope-required-unless-cross-spine"].sentence;
    for (const name of ["search_memory", "list_memory", "list_scheduled", "search_discovery"]) {
      expect(tools.find((t) => t.name === name)!.description, name).toContain(sentence);
    }
  });

  it("states the schedule window rules in the words of the rule table", () => {
    const d = tools.find((t) => t.name === "schedule_memory")!.description!;
    for (const id of ["schedule-window-at-least-one-bound", "window-not-before-before-not-after", "discovery-not-schedulable"] as const) {
      expect(d).toContain(RULES[id].sentence);
    }
  });

  it("tells agents to store a rule only on the user's explicit instruction", () => {
    expect(tools.find((t) => t.name === "store_rule")!.description).toMatch(/ONLY when the user explicitly/);
  });

  it("advertises at least one supersedes target in the schema without a bound on the count", () => {
    const p = (tools.find((t) => t.name === "supersede_memory")!.inputSchema.properties as Record<string, Record<string, unknown>>)
      .supersedes!;
    expect(p).toMatchObject({ type: "array", minItems: 1 });
    expect(p.maxItems).toBeUndefined();
  });

  it("names the MCP cursor cursor and set_visibility's flag shared", () => {
    for (const name of ["list_memory", "list_scheduled"]) {
      const list = tools.find((t) => t.name === name)!.inputSchema.properties!;
      expect(Object.keys(list)).toContain("cursor");
      expect(Object.keys(list)).not.toContain("page_token");
    }
    const vis = tools.find((t) => t.name === "set_visibility")!.inputSchema.properties!;
    expect(Object.keys(vis).sort()).toEqual(["id", "shared"]);
  });

  it("advertises the server name, the package version and the contract version at initialize", () => {
    expect(mcp.client.getServerVersion()).toEqual({ name: SERVER_NAME, version: pkg.version });
    const experimental = mcp.client.getServerCapabilities()?.experimental as Record<string, { version: string }>;
    expect(experimental[CONTRACT_CAPABILITY]).toEqual({ version: CONTRACT_VERSION });
    expect(CONTRACT_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe("the tool docs: docs/tools.md and its pages of tool sections", () => {
  it("lists in docs/tools.md, for each page, exactly the tools whose sections it holds, in table order", () => {
    const index = readDoc(TOOL_DOC_PAGES[0]);
    const listed = TOOL_DOC_PAGES.slice(1).flatMap((page) => {
      const bullet = index.split(/^- /m).find((b) => b.startsWith(`[${page}](${page})`));
      expect(bullet, page).toBeDefined();
      const named = [...bullet!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
      const text = readDoc(page);
      const held = [...text.matchAll(/^## `([a-z_]+)`/gm)].map((m) => m[1]!);
      expect(named, page).toEqual(held);
      return held;
    });
    expect(listed).toEqual(TOOL_NAMES);
  });


  it("has an annotation table equal to the code's table in both directions", () => {
    const t = tableAfter(DOC, /^## Annotations$/);
    expect(t.header).toEqual(["Tool", "readOnly", "destructive", "idempotent", "openWorld"]);
    const fromDoc = Object.fromEntries(
      t.rows.map(([tool, ro, de, id, ow]) => [
        tool!.replace(/`/g, ""),
        { readOnlyHint: ro === "true", destructiveHint: de === "true", idempotentHint: id === "true", openWorldHint: ow === "true" },
      ]),
    );
    for (const row of t.rows) for (const cell of row.slice(1)) expect(["true", "false"]).toContain(cell);
    const fromCode = Object.fromEntries(TOOL_NAMES.map((n) => [n, annotationsOf(n)]));
    expect(fromDoc).toEqual(fromCode);
    expect(t.rows.map((r) => r[0]!.replace(/`/g, ""))).toEqual(TOOL_NAMES);
  });

  it("has one section per tool", () => {
    const sections = docSections();
    expect([...sections.keys()].sort()).toEqual([...TOOL_NAMES].sort());
  });

  it("states each section's annotations as the table does", () => {
    for (const [name, s] of docSections()) {
      const a = annotationsOf(name as keyof typeof TOOL_TABLE);
      const line = s.body.replace(/\s+/g, " ");
      expect(line, name).toContain(
        `**Annotations:** readOnly ${a.readOnlyHint}, destructive ${a.destructiveHint}, idempotent ${a.idempotentHint}, openWorld ${a.openWorldHint}`,
      );
    }
  });

  it("documents exactly the input schema's arguments of every implemented tool", () => {
    const sections = docSections();
    const writeFields = tableAfter(DOC, "**Memory write fields**");
    expect(writeFields.header.slice(0, 2)).toEqual(["Argument", "Type"]);
    for (const name of TOOL_NAMES) {
      const h = handlerOf(name);
      const body = sections.get(name)!.body;
      const documented: string[] = [];
      if (/the memory write fields/.test(body)) documented.push(...writeFields.rows.map((r) => r[0]!));
      if (/^\| Argument \|/m.test(body)) {
        const table = tableAfter(body, /^\| Argument \|/);
        expect(table.header.slice(0, 2), name).toEqual(["Argument", "Type"]);
        documented.push(...table.rows.map((r) => r[0]!));
      }
      expect(documented.map((a) => a.replace(/`/g, "")).sort(), name).toEqual(Object.keys(h.input).sort());
    }
  });

  it("documents each argument's JSON type as the schema declares it", async () => {
    const mcp = await inMemoryMcp();
    try {
      const { tools } = await mcp.client.listTools();
      const sections = docSections();
      const writeFields = tableAfter(DOC, "**Memory write fields**").rows;
      const jsonType = (p: { type?: string; items?: { type?: string; properties?: Record<string, unknown> } }) =>
        p.type === "array" ? (p.items?.type === "object" ? (p.items.properties?.content ? "record[]" : "citation[]") : `${p.items?.type}[]`) : p.type;
      for (const t of tools) {
        const body = sections.get(t.name)!.body;
        const rows = [
          ...(/the memory write fields/.test(body) ? writeFields : []),
          ...(/^\| Argument \|/m.test(body) ? tableAfter(body, /^\| Argument \|/).rows : []),
        ];
        for (const [arg, type] of rows) {
          const prop = (t.inputSchema.properties as Record<string, { type?: string; items?: { type?: string; properties?: Record<string, unknown> } }>)[arg!.replace(/`/g, "")]!;
          expect(type, `${t.name}.${arg}`).toBe(jsonType(prop));
        }
      }
    } finally {
      await mcp.close();
    }
  });

  it("gives the defaults and caps the core applies on this lane", () => {
    const sections = docSections();
    const row = (tool: string, arg: string) =>
      tableAfter(sections.get(tool)!.body, /^\| Argument \|/).rows.find((r) => r[0] === `\`${arg}\``)!.join(" ");
    const max = DEFAULT_LIMITS.maxRecall;
    expect(row("search_memory", "k")).toContain(`default ${LANE_POLICY.mcp.searchK}, max ${max}`);
    expect(row("list_memory", "limit")).toContain(`default ${LANE_POLICY.mcp.listLimitCursor}, max ${max}`);
    expect(row("list_scheduled", "limit")).toContain(`default ${LANE_POLICY.mcp.listLimitCursor}, max ${max}`);
    expect(row("search_discovery", "k")).toContain(`default ${LANE_POLICY.mcp.discoveryK}, max ${max}`);
    expect(row("related_memories", "k")).toContain(`default ${DEFAULT_LIMITS.relatedDefaultK}, max ${max}`);
    expect(row("list_tags", "limit")).toContain(`default ${DEFAULT_LIMITS.listTagsDefaultLimit}, max ${max}`);
    expect(row("store_memories", "memories")).toContain(`1 to ${DEFAULT_LIMITS.maxBatchRecords} records`);
    expect(row("store_discovery", "content")).toContain(`at most ${DEFAULT_LIMITS.maxDiscoveryContentBytes} bytes`);
    expect(row("store_discovery", "citations")).toContain(`1 to ${DEFAULT_LIMITS.maxCitations}`);
    expect(row("store_rule", "content")).toContain(`at most ${DEFAULT_LIMITS.maxRuleContentBytes} bytes`);
    expect(row("store_rule", "summary")).toContain(`at most ${DEFAULT_LIMITS.maxRuleSummaryBytes} bytes`);
    expect(row("supersede_memory", "supersedes")).toContain(`at most ${DEFAULT_LIMITS.maxTargetBytes} bytes`);
    for (const tool of ["archive_memory", "restore_memory"]) {
      expect(row(tool, "ids")).toContain(`1 to ${max} ids or short ids, each at most ${DEFAULT_LIMITS.maxArchiveIdBytes} bytes`);
    }
    expect(sections.get("list_rules")!.body).toContain(`more than ${DEFAULT_LIMITS.ruleAdvisoryThreshold} rules`);
    const write = tableAfter(DOC, "**Memory write fields**").rows;
    const note = (arg: string) => write.find((r) => r[0] === `\`${arg}\``)!.join(" ");
    expect(note("content")).toContain(`at most ${DEFAULT_LIMITS.maxContentBytes} bytes`);
    expect(note("tags")).toContain(`at most ${DEFAULT_LIMITS.maxTags} tags of at most ${DEFAULT_LIMITS.maxTagBytes} bytes`);
    expect(note("summary")).toContain(`at most ${DEFAULT_LIMITS.maxSummaryBytes} bytes`);
    expect(note("citations")).toContain(`at most ${DEFAULT_LIMITS.maxCitations}`);
    expect(note("idempotency_key")).toContain(`at most ${DEFAULT_LIMITS.maxIdempotencyKeyBytes} bytes`);
    expect(DOC).toContain(`excerpt\` is at most ${DEFAULT_LIMITS.maxExcerptBytes}`);
    expect(DOC).toContain(`cut at\n${DEFAULT_LIMITS.summaryMaxChars} characters`);
  });

  it("quotes the scope rule sentence where the scope argument is documented", () => {
    const sentence = RULES["scope-required-unless-cross-spine"].sentence;
    for (const name of ["search_memory", "list_memory", "list_scheduled", "search_discovery"]) {
      expect(docSections().get(name)!.body, name).toContain(sentence);
    }
  });
});
