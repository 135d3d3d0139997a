/**
 * Issue 24, items 7, 9 and 11 on every lane they touch (Connect, MCP over
 * Streamable HTTP, the CLI as a child process), against one real server on
 * the store this run tests (also on the Qdrant fake):
 *
 * - item 7: list_scheduled's `active` state (windowed and inside its window
 *   now), and `all` as every windowed record, so a fact about to expire can
 *   be found;
 * - item 9: related_memories lists a superseded predecessor along the chain
 *   (the doc now says so), and no superseded record along any other edge;
 * - item 11: UpdateMemory on the caller's own rule with a summary on two
 *   lines answers the rule's own sentence.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { SCHEDULE_STATES } from "../src/core/index.js";
import type { MemoryRecord } from "../src/model/record.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { runEngram } from "./helpers/run-engram.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

const TOKEN = "tok-edges-alice";
const SECRET = "sekrit-edges-9c1e";
const SCOPE = "repo:edges";
const NOW_S = Math.floor(Date.now() / 1000);
const DAY = 86_400;

type Lanes = {
  connect: ReturnType<TestServer["client"]>;
  mcp: McpClient;
  cli: (args: string[]) => ReturnType<typeof runEngram>;
};

let server: TestServer;
let lanes: Lanes;

beforeAll(async () => {
  server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: `alice=${TOKEN}` } });
  const mcp = new McpClient({ name: "surface-edges", version: "0.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  lanes = {
    connect: server.client(TOKEN),
    mcp,
    cli: (args) => runEngram(args, { ENGRAM_SERVER_URL: server.url, ENGRAM_TOKEN: TOKEN }),
  };
});

afterAll(async () => {
  await lanes?.mcp.close();
  await server?.close();
});

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

async function tool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await lanes.mcp.callTool({ name, arguments: args })) as ToolResult;
}

/** One rejection on all three lanes: the exact envelope, the Connect code, MCP's only text, exit 2 and nothing planted echoed. */
async function expectRejected(
  row: { envelope: string; code: Code; connect: () => Promise<unknown>; mcp: [string, Record<string, unknown>]; cli: string[] },
): Promise<void> {
  const err = await row.connect().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectError);
  expect({ message: (err as ConnectError).rawMessage, code: Code[(err as ConnectError).code] }).toEqual({ message: row.envelope, code: Code[row.code] });
  const res = await tool(...row.mcp);
  expect({ isError: res.isError, texts: res.content.map((c) => c.text), structured: res.structuredContent }).toEqual({
    isError: true,
    texts: [row.envelope],
    structured: undefined,
  });
  const run = await lanes.cli([...row.cli, "--output", "json"]);
  expect(run).toEqual({ code: EXIT.usage, stdout: "", stderr: `${row.envelope}\n` });
  expect(JSON.stringify([err, res]) + server.log.text()).not.toContain(SECRET);
}

// ---- item 7 ------------------------------------------------------------------------

/** Alice's records, oldest first: one of each window state, plus two that no state may list. */
const WINDOWED: Record<string, Partial<MemoryRecord>> = {
  scheduled: { not_before: NOW_S + DAY },
  expiring: { not_after: NOW_S + DAY },
  inside: { not_before: NOW_S - DAY, not_after: NOW_S + DAY },
  begun: { not_before: NOW_S - DAY },
  expired: { not_after: NOW_S - 60 },
  plain: {},
  archivedInside: { not_after: NOW_S + DAY, archived_at: new Date((NOW_S - 10) * 1000).toISOString() },
};
const ids: Record<string, string> = {};

describe("item 7: list_scheduled finds a record inside its window (state active) and lists it under all", () => {
  beforeAll(async () => {
    const names = Object.keys(WINDOWED);
    for (const [i, name] of names.entries()) {
      const rec = syntheticRecord(9100 + i, { ...WINDOWED[name], owner: "alice", scope: SCOPE, short_id: `EDGESW${String(i).padStart(4, "0")}` });
      ids[name] = rec.id;
      await server.store.create(rec, await server.embedder.embedDocuments([rec.content]).then((v) => v[0]!));
    }
  });

  // Newest first, as list_scheduled orders.
  const ROWS: { state: string; want: string[] }[] = [
    { state: "", want: ["scheduled"] },
    { state: "scheduled", want: ["scheduled"] },
    { state: "active", want: ["begun", "inside", "expiring"] },
    { state: "expired", want: ["expired"] },
    { state: "all", want: ["expired", "begun", "inside", "expiring", "scheduled"] },
  ];

  it("declares the states in lifecycle order, all last", () => {
    expect(SCHEDULE_STATES).toEqual(["scheduled", "active", "expired", "all"]);
  });

  it.each(ROWS)("state '$state' on Connect, MCP and the CLI", async ({ state, want }) => {
    const expected = want.map((n) => ids[n]);
    const connect = await lanes.connect.listScheduled({ scope: SCOPE, state });
    expect(connect.memories.map((m) => m.id)).toEqual(expected);

    const mcp = await tool("list_scheduled", state === "" ? { scope: SCOPE } : { scope: SCOPE, state });
    expect(mcp.isError).toBeFalsy();
    // The first text is the summary line; the second mirrors the structured result.
    expect(mcp.content[0]?.text).toBe(`${expected.length} scheduled`);
    expect((mcp.structuredContent!.memories as { id: string }[]).map((m) => m.id)).toEqual(expected);

    const run = await lanes.cli(["list-scheduled", "--scope", SCOPE, ...(state === "" ? [] : ["--state", state]), "--output", "json"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect((JSON.parse(run.stdout) as { memories: { id: string }[] }).memories.map((m) => m.id)).toEqual(expected);
  });

  it("a state outside the set names the new one in the enum, and echoes nothing", async () => {
    await expectRejected({
      envelope: "field=state hint=enum: state must be one of scheduled|active|expired|all",
      code: Code.InvalidArgument,
      connect: () => lanes.connect.listScheduled({ scope: SCOPE, state: SECRET }),
      mcp: ["list_scheduled", { scope: SCOPE, state: SECRET }],
      cli: ["list-scheduled", "--scope", SCOPE, "--state", SECRET],
    });
  });
});

// ---- item 9 ------------------------------------------------------------------------

describe("item 9: related_memories lists the superseded predecessor on the chain, and superseded records on no other edge", () => {
  const chain: Record<string, string> = {};

  beforeAll(async () => {
    const cite = [{ kind: "file", ref: "src/edges.ts", locator: "1", pin: "", excerpt: "" }];
    const base = { scope: "repo:related", source: "user-said", category: "decision" } as const;
    const old = await lanes.connect.storeMemory({ ...base, content: "the edge cache keys by path" });
    const head = await lanes.connect.supersedeMemory({ ...base, content: "the edge cache keys by path and hash", supersedes: [old.id], citations: cite });
    // Cites the same file as the head, but is itself superseded: the citation edge must not list it.
    const sibling = await lanes.connect.storeMemory({ ...base, content: "the edge cache lives in one file", citations: cite });
    const replacement = await lanes.connect.supersedeMemory({ ...base, content: "the edge cache moved elsewhere", supersedes: [sibling.id] });
    Object.assign(chain, { old: old.id, head: head.id, sibling: sibling.id, replacement: replacement.id });
  });

  const PREDECESSOR = { type: "EDGE_TYPE_SUPERSESSION", supersession: { direction: "SUPERSESSION_DIRECTION_PREDECESSOR", depth: 1 } };

  it("on Connect", async () => {
    const res = await lanes.connect.relatedMemories({ id: chain.head });
    const listed = res.related.map((r) => r.memory!.id);
    expect(listed).toContain(chain.old);
    expect(listed).not.toContain(chain.sibling);
    const old = res.related.find((r) => r.memory!.id === chain.old)!;
    expect(old.memory!.supersededBy).toBe(chain.head);
    expect(old.edges[0]!.evidence).toEqual({ case: "supersession", value: expect.objectContaining({ depth: 1 }) });
  });

  it("on MCP", async () => {
    const res = await tool("related_memories", { id: chain.head });
    const related = res.structuredContent!.related as { memory: { id: string }; edges: Record<string, unknown>[] }[];
    expect(res.content[0]?.text).toBe(`${related.length} related`);
    expect(related.find((r) => r.memory.id === chain.old)?.edges[0]).toEqual({ type: "supersession", direction: "predecessor", depth: 1 });
    expect(related.map((r) => r.memory.id)).not.toContain(chain.sibling);
  });

  it("on the CLI", async () => {
    const run = await lanes.cli(["related", chain.head!, "--output", "json"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    const res = JSON.parse(run.stdout) as { related: { memory: { id: string }; edges: unknown[] }[] };
    expect(res.related.find((r) => r.memory.id === chain.old)?.edges).toEqual([PREDECESSOR]);
    expect(res.related.map((r) => r.memory.id)).not.toContain(chain.sibling);
  });
});

// ---- item 11 -----------------------------------------------------------------------

describe("item 11: an update to a rule's summary on two lines answers the rule's own sentence", () => {
  let rule = "";
  let plain = "";

  beforeAll(async () => {
    rule = (await lanes.connect.storeRule({ content: "squash before merge", scope: "rule:repo:edges", summary: "squash merges" })).id;
    plain = (await lanes.connect.storeMemory({ content: "a plain note", scope: SCOPE, source: "user-said", category: "convention" })).id;
  });

  const ROWS = [
    {
      name: "the caller's own rule: the rule's sentence",
      target: () => rule,
      envelope: "field=summary hint=format: rule summary must be a single line (no newlines); it is the index entry",
    },
    { name: "a plain record: the generic sentence", target: () => plain, envelope: "field=summary hint=format: summary must be a single line (no newlines)" },
    {
      name: "an id that names nothing: the generic sentence, before any not-found",
      target: () => "00000000-0000-4000-8000-00000000e0e0",
      envelope: "field=summary hint=format: summary must be a single line (no newlines)",
    },
  ];

  it.each(ROWS)("$name", async ({ target, envelope }) => {
    const summary = `${SECRET}\nsecond line`;
    await expectRejected({
      envelope,
      code: Code.InvalidArgument,
      connect: () => lanes.connect.updateMemory({ id: target(), summary, updateMask: { paths: ["summary"] } }),
      mcp: ["update_memory", { id: target(), content: target() === rule ? "squash before merge" : "a plain note", summary }],
      cli: ["update", target(), "--summary", summary],
    });
  });
});
