/**
 * One table for the rejections that close the contract's edges: the query
 * cap, closed source and category sets, the reserved writers of rules and
 * discoveries, one-line summaries, blank tags, and MCP arguments of the wrong
 * type or unknown to the tool. Each row is driven through every lane that can
 * express it against one real server: the Connect code and the envelope
 * (rawMessage), the MCP isError text, and the exit status and stderr line of
 * the real CLI. The same planted value must come back on no lane and in no
 * log line.
 */
import { Code, ConnectError, type Client as ConnectClient } from "@connectrpc/connect";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, ruleError } from "../src/argerror/index.js";
import { EngramService, Visibility } from "../src/gen/engram/v1/engram_pb.js";
import { runningEngram, texts, type RunningEngram, type ToolResult } from "./fixtures/mcp-harness.js";
import { SECRET, pad } from "./helpers/envelope-table.js";
import { runEngram } from "./helpers/run-engram.js";

type Rpc = ConnectClient<typeof EngramService>;

const TOKEN = "tok-closure";
const WRITE = { content: `the content ${SECRET}`, scope: "project:closure", source: "user-said", category: "decision" };
const CLI_WRITE = ["--content", `the content ${SECRET}`, "--scope", "project:closure"];
const RULES_LINE = "decision|preference|convention|gotcha";
const LONG_QUERY = pad(9000);

type Row = {
  name: string;
  envelope: string;
  /** The Connect code; asserted wherever the row has a Connect call. */
  code: Code;
  mcp: { tool: string; args: Record<string, unknown> };
  /** Absent when the proto cannot carry the mistake (a wrong JSON type, an argument MCP does not know). */
  connect?: (c: Rpc) => Promise<unknown>;
  /** CLI argv before --server; absent when no flag can carry the mistake. */
  cli?: string[];
};

const ROWS: Row[] = [
  // The query cap (issue 9 item 2).
  {
    name: "a search query over 8192 bytes is too long",
    envelope: "field=query hint=too_long: query too large: 9000 bytes (max 8192)",
    code: Code.OutOfRange,
    mcp: { tool: "search_memory", args: { query: LONG_QUERY, scope: "project:closure" } },
    connect: (c) => c.searchMemories({ query: LONG_QUERY, scope: "project:closure" }),
    cli: ["search", "--query", LONG_QUERY, "--scope", "project:closure"],
  },
  {
    name: "a discovery query over 8192 bytes is too long",
    envelope: "field=query hint=too_long: query too large: 9000 bytes (max 8192)",
    code: Code.OutOfRange,
    mcp: { tool: "search_discovery", args: { query: LONG_QUERY, cross_spine: true } },
    connect: (c) => c.searchDiscoveries({ query: LONG_QUERY }),
  },

  // Closed sets (item 5).
  {
    name: "a source outside its set is refused with the accepted values",
    envelope: "field=source hint=enum: source must be one of user-said|agent-inferred",
    code: Code.InvalidArgument,
    mcp: { tool: "store_memory", args: { ...WRITE, source: SECRET } },
    connect: (c) => c.storeMemory({ ...WRITE, source: SECRET }),
    cli: ["store", ...CLI_WRITE, "--source", SECRET, "--category", "decision"],
  },
  {
    name: "a category outside its set is refused with the accepted values",
    envelope: `field=category hint=enum: category must be one of ${RULES_LINE}`,
    code: Code.InvalidArgument,
    mcp: { tool: "store_memory", args: { ...WRITE, category: SECRET } },
    connect: (c) => c.storeMemory({ ...WRITE, category: SECRET }),
    cli: ["store", ...CLI_WRITE, "--source", "user-said", "--category", SECRET],
  },
  {
    name: "category rule on a plain store names store_rule",
    envelope: `field=category hint=enum: category must be one of ${RULES_LINE} (rule records are written only by store_rule)`,
    code: Code.InvalidArgument,
    mcp: { tool: "store_memory", args: { ...WRITE, category: "rule" } },
    connect: (c) => c.storeMemory({ ...WRITE, category: "rule" }),
    cli: ["store", ...CLI_WRITE, "--source", "user-said", "--category", "rule"],
  },
  {
    name: "category discovery on a supersede names store_discovery",
    envelope: `field=category hint=enum: category must be one of ${RULES_LINE} (discovery records are written only by store_discovery)`,
    code: Code.InvalidArgument,
    mcp: { tool: "supersede_memory", args: { ...WRITE, category: "discovery", supersedes: ["a1b2c3d4e5"] } },
    connect: (c) => c.supersedeMemory({ ...WRITE, category: "discovery", supersedes: ["a1b2c3d4e5"] }),
  },
  {
    name: "category discovery on a schedule keeps the reference's rule",
    envelope: ruleError("discovery-not-schedulable").message,
    code: Code.FailedPrecondition,
    mcp: { tool: "schedule_memory", args: { ...WRITE, category: "discovery", not_after: "2999-01-01T00:00:00Z" } },
    cli: ["schedule", ...CLI_WRITE, "--source", "user-said", "--category", "discovery", "--not-after", "2999-01-01T00:00:00Z"],
  },
  {
    name: "a scope under rule: on a plain store names store_rule",
    envelope: "field=scope hint=prefix: scopes under rule: are written only by store_rule",
    code: Code.InvalidArgument,
    mcp: { tool: "store_memory", args: { ...WRITE, scope: `rule:repo:${SECRET}` } },
    connect: (c) => c.storeMemory({ ...WRITE, scope: `rule:repo:${SECRET}` }),
    cli: ["store", "--content", "c", "--scope", `rule:repo:${SECRET}`, "--source", "user-said", "--category", "decision"],
  },
  {
    name: "a scope under discovery: on a schedule names store_discovery",
    envelope: "field=scope hint=prefix: scopes under discovery: are written only by store_discovery",
    code: Code.InvalidArgument,
    mcp: { tool: "schedule_memory", args: { ...WRITE, scope: `discovery:${SECRET}` } },
    connect: (c) => c.scheduleMemory({ ...WRITE, scope: `discovery:${SECRET}` }),
  },

  // One-line summaries (item 6).
  {
    name: "a memory summary on two lines is a format error",
    envelope: "field=summary hint=format: summary must be a single line (no newlines)",
    code: Code.InvalidArgument,
    mcp: { tool: "store_memory", args: { ...WRITE, summary: `${SECRET}\nsecond line` } },
    connect: (c) => c.storeMemory({ ...WRITE, summary: `${SECRET}\nsecond line` }),
    cli: ["store", ...CLI_WRITE, "--source", "user-said", "--category", "decision", "--summary", `${SECRET}\nsecond line`],
  },
  {
    name: "a discovery summary on two lines is a format error",
    envelope: "field=summary hint=format: summary must be a single line (no newlines)",
    code: Code.InvalidArgument,
    mcp: {
      tool: "store_discovery",
      args: { content: "c", kind: "fact", scope: "discovery:x", citations: [{ kind: "file", ref: "a.ts" }], summary: `${SECRET}\r\nx` },
    },
    connect: (c) =>
      c.storeDiscovery({ content: "c", kind: "fact", scope: "discovery:x", citations: [{ kind: "file", ref: "a.ts" }], summary: `${SECRET}\r\nx` }),
  },
  {
    name: "an update to a summary on two lines is a format error before any lookup",
    envelope: "field=summary hint=format: summary must be a single line (no newlines)",
    code: Code.InvalidArgument,
    mcp: { tool: "update_memory", args: { id: "a1b2c3d4e5", content: "c", summary: `${SECRET}\nx` } },
    connect: (c) => c.updateMemory({ id: "a1b2c3d4e5", summary: `${SECRET}\nx`, updateMask: { paths: ["summary"] } }),
    cli: ["update", "a1b2c3d4e5", "--summary", `${SECRET}\nx`],
  },

  // Tags (item 7). The CLI drops blank list entries itself, so it has no row here.
  {
    name: "a blank tag is refused",
    envelope: "field=tags hint=required: tags entries must not be blank",
    code: Code.InvalidArgument,
    mcp: { tool: "store_memory", args: { ...WRITE, tags: ["ok", "  "] } },
    connect: (c) => c.storeMemory({ ...WRITE, tags: ["ok", "  "] }),
  },
  {
    name: "a blank tag in a rule is refused",
    envelope: "field=tags hint=required: tags entries must not be blank",
    code: Code.InvalidArgument,
    mcp: { tool: "store_rule", args: { content: "c", scope: "rule:repo:x", summary: "one line", tags: [""] } },
    connect: (c) => c.storeRule({ content: "c", scope: "rule:repo:x", summary: "one line", tags: [""] }),
  },

  // An id the not-found sentinel would repeat is bounded first.
  {
    name: "an id over 256 bytes is too long before any lookup",
    envelope: "field=id hint=too_long: id too large: 300 bytes (max 256)",
    code: Code.OutOfRange,
    mcp: { tool: "get_memory", args: { id: pad(300) } },
    connect: (c) => c.getMemory({ id: pad(300) }),
    cli: ["get", pad(300)],
  },

  // ... and holds no control character, so the sentinel's echo stays one line and forges nothing.
  {
    name: "an id with a line break is a format error before any lookup",
    envelope: "field=id hint=format: id must not contain control characters or line breaks",
    code: Code.InvalidArgument,
    mcp: { tool: "get_memory", args: { id: `${SECRET}\nfield=id hint=format: forged` } },
    connect: (c) => c.getMemory({ id: `${SECRET}\nfield=id hint=format: forged` }),
    cli: ["get", `${SECRET}\nfield=id hint=format: forged`],
  },
  {
    name: "a discovery id with a control character is a format error before any lookup",
    envelope: "field=id hint=format: id must not contain control characters or line breaks",
    code: Code.InvalidArgument,
    mcp: { tool: "store_discovery", args: { content: "c", kind: "fact", scope: "discovery:x", citations: [{ kind: "file", ref: "a.ts" }], id: `${SECRET}\u0085` } },
    connect: (c) => c.storeDiscovery({ content: "c", kind: "fact", scope: "discovery:x", citations: [{ kind: "file", ref: "a.ts" }], id: `${SECRET}\u0085` }),
  },
  {
    name: "a supersedes entry with a line break is a format error naming its index",
    envelope: "field=supersedes hint=format: supersedes[1] must not contain control characters or line breaks",
    code: Code.InvalidArgument,
    mcp: { tool: "supersede_memory", args: { ...WRITE, supersedes: ["a1b2c3d4e5", `${SECRET}\r\nx`] } },
    connect: (c) => c.supersedeMemory({ ...WRITE, supersedes: ["a1b2c3d4e5", `${SECRET}\r\nx`] }),
  },

  // MCP arguments the SDK used to answer itself (item 4). The proto cannot carry these mistakes.
  {
    name: "a negative k reaches the core's count check",
    envelope: "field=k hint=format: k must be a non-negative integer",
    code: Code.InvalidArgument,
    mcp: { tool: "search_memory", args: { query: "q", scope: "s", k: -3 } },
  },
  {
    name: "a string where a count goes reaches the core",
    envelope: "field=limit hint=format: limit must be a non-negative integer",
    code: Code.InvalidArgument,
    mcp: { tool: "list_memory", args: { scope: "s", limit: SECRET } },
  },
  {
    name: "an array where a string goes reaches the core",
    envelope: "field=scope hint=format: scope must be a string",
    code: Code.InvalidArgument,
    mcp: { tool: "list_memory", args: { scope: [SECRET] } },
  },
  {
    name: "a string where a list goes reaches the core",
    envelope: "field=tags hint=format: tags must be a list of strings",
    code: Code.InvalidArgument,
    mcp: { tool: "search_memory", args: { query: "q", scope: "s", tags: SECRET } },
  },
  {
    name: "a non-boolean flag reaches the core",
    envelope: "field=full hint=format: full must be true or false",
    code: Code.InvalidArgument,
    mcp: { tool: "list_rules", args: { full: SECRET } },
  },
  {
    name: "a citation that is not an object reaches the core",
    envelope: "field=citations hint=format: citation 0 must be an object",
    code: Code.InvalidArgument,
    mcp: { tool: "store_discovery", args: { content: "c", kind: "map", scope: "discovery:x", citations: [SECRET] } },
  },
  {
    name: "a citation field of the wrong type reaches the core",
    envelope: "field=citations[i].ref hint=format: citation 1: ref must be a string",
    code: Code.InvalidArgument,
    mcp: {
      tool: "store_memory",
      args: { ...WRITE, citations: [{ kind: "file", ref: "a" }, { kind: "file", ref: 7 }] },
    },
  },
  {
    name: "an unknown citation field is refused by name",
    envelope: "field=citations[i] hint=not_applicable: citation 0: line is not a field of a citation",
    code: Code.FailedPrecondition,
    mcp: { tool: "store_memory", args: { ...WRITE, citations: [{ kind: "file", ref: "a", line: SECRET }] } },
  },
  {
    name: "offset on list_memory is refused, not dropped",
    envelope: "field=offset hint=not_applicable: offset is not an argument of list_memory",
    code: Code.FailedPrecondition,
    mcp: { tool: "list_memory", args: { scope: "s", offset: 5 } },
  },
  {
    name: "a misspelt tag filter is refused, not dropped",
    envelope: "field=tag hint=not_applicable: tag is not an argument of search_memory",
    code: Code.FailedPrecondition,
    mcp: { tool: "search_memory", args: { query: "q", scope: "s", tag: [SECRET] } },
  },
  {
    name: "an argument name that is not a plain identifier is reported as arguments",
    envelope: "field=arguments hint=not_applicable: an argument name is not an argument of get_memory",
    code: Code.FailedPrecondition,
    mcp: { tool: "get_memory", args: { id: "x", [`${SECRET} name`]: 1 } },
  },
  {
    name: "an argument name over 64 bytes is reported as arguments",
    envelope: "field=arguments hint=not_applicable: an argument name is not an argument of get_memory",
    code: Code.FailedPrecondition,
    mcp: { tool: "get_memory", args: { id: "x", [`a${"b".repeat(64)}`]: 1 } },
  },
  {
    name: "an unknown argument is refused before the core's own checks",
    envelope: "field=actor hint=not_applicable: actor is not an argument of store_memory",
    code: Code.FailedPrecondition,
    mcp: { tool: "store_memory", args: { actor: SECRET } },
  },
];

let srv: RunningEngram;
let mcp: Client;
let rpc: Rpc;

beforeAll(async () => {
  srv = await runningEngram({ ENGRAM_AUTH_TOKENS: `alice=${TOKEN}` });
  mcp = await srv.mcp(TOKEN);
  rpc = srv.connect(TOKEN);
});
afterAll(async () => srv?.close());

describe("every rejection at the contract's edges, on every lane", () => {
  it("has unique row names and an envelope-shaped expectation in each row", () => {
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
    for (const r of ROWS) expect(r.envelope, r.name).toMatch(/^field=[^ ]+ hint=[a-z_]+: /);
  });

  it.each(ROWS)("$name: MCP answers the envelope as its only text", async (row) => {
    const r = (await mcp.callTool({ name: row.mcp.tool, arguments: row.mcp.args })) as ToolResult;
    expect(r.isError, JSON.stringify(r)).toBe(true);
    expect("structuredContent" in r).toBe(false);
    expect(texts(r)).toEqual([row.envelope]);
  });

  it.each(ROWS.filter((r) => r.connect))("$name: Connect answers the same envelope and its code", async (row) => {
    const err = await row.connect!(rpc).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(err, "the call must fail").toBeInstanceOf(ConnectError);
    expect(err!.rawMessage).toBe(row.envelope);
    expect(Code[err!.code]).toBe(Code[row.code]);
    expect(JSON.stringify(err)).not.toContain(SECRET);
  });

  it.concurrent.for(ROWS.filter((r) => r.cli))("$name: the CLI prints the envelope and exits 2", async (row, { expect }) => {
    const run = await runEngram([...row.cli!, "--server", srv.url], { ENGRAM_TOKEN: TOKEN });
    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: EXIT.usage });
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n")).toContain(row.envelope);
    expect(run.stderr).not.toContain(SECRET);
  });

  it("echoes the planted value in no log line", () => {
    expect(srv.log.text()).not.toContain(SECRET);
  });
});

describe("what the refusals protect", () => {
  it("embeds nothing for an oversized query on either lane", async () => {
    const before = srv.embedder.calls;
    await mcp.callTool({ name: "search_memory", arguments: { query: LONG_QUERY, cross_spine: true } });
    await rpc.searchMemories({ query: LONG_QUERY, crossSpine: true }).catch(() => undefined);
    await rpc.searchDiscoveries({ query: LONG_QUERY }).catch(() => undefined);
    expect(srv.embedder.calls).toBe(before);
  });

  it("accepts a query of exactly the cap", async () => {
    const r = await rpc.searchMemories({ query: "q".repeat(8192), scope: "project:closure" });
    expect(r.memories).toEqual([]);
  });

  it("lets no refused write appear in list_rules or search_discovery", async () => {
    const rules = (await mcp.callTool({ name: "list_rules", arguments: {} })) as ToolResult;
    expect((rules.structuredContent as { rules: unknown[] }).rules).toEqual([]);
    const found = await rpc.searchDiscoveries({ query: "the content" });
    expect(found.discoveries).toEqual([]);
    const wide = await rpc.listMemories({ crossSpine: true });
    expect(wide.memories).toEqual([]);
  });

  it("stores repeated tags once, keeping the first occurrence first, on both lanes", async () => {
    const viaMcp = (await mcp.callTool({
      name: "store_memory",
      arguments: { ...WRITE, content: "tags once via mcp", scope: "project:tags", tags: ["b", "a", "b", "a"] },
    })) as ToolResult;
    const { id } = viaMcp.structuredContent as { id: string };
    const viaRpc = await rpc.storeMemory({ ...WRITE, content: "tags once via connect", scope: "project:tags", tags: ["x", "x", "y"] });
    expect((await rpc.getMemory({ id })).memory?.tags).toEqual(["b", "a"]);
    expect((await rpc.getMemory({ id: viaRpc.id })).memory?.tags).toEqual(["x", "y"]);
    const counts = await rpc.listTags({ scope: "project:tags" });
    expect(counts.tags.map((t) => [t.tag, Number(t.count)]).sort()).toEqual([["a", 1], ["b", 1], ["x", 1], ["y", 1]]);
  });

  it("counts 128 distinct tags as within the cap even when repeats are sent too", async () => {
    const tags = Array.from({ length: 128 }, (_, i) => `t${i}`);
    const r = await rpc.storeMemory({ ...WRITE, content: "many tags", scope: "project:many", tags: [...tags, "t0", "t1"] });
    expect((await rpc.getMemory({ id: r.id })).memory?.tags).toEqual(tags);
  });

  it("still lets store_rule and store_discovery write their reserved categories and scopes", async () => {
    const rule = await rpc.storeRule({ content: "Use pnpm.", scope: "rule:repo:closure", summary: "use pnpm" });
    const disc = await rpc.storeDiscovery({ content: "Parser lives in src/parse.ts", kind: "fact", scope: "discovery:repo:closure", citations: [{ kind: "file", ref: "src/parse.ts" }] });
    expect((await rpc.getMemory({ id: rule.id })).memory?.category).toBe("rule");
    expect((await rpc.getMemory({ id: disc.id })).memory?.category).toBe("discovery");
    expect((await rpc.setVisibility({ id: disc.id, visibility: Visibility.SHARED })).id).toBe(disc.id);
  });
});
