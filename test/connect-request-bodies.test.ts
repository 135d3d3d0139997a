/**
 * Issue 24, the Connect side, for how a request body is read: an unknown
 * JSON field is refused on every JSON wire (Connect, gRPC-Web, gRPC) with the
 * sentence MCP uses for an unknown argument, under the code the vocabulary
 * gives `not_applicable`; binary protobuf still skips field numbers it does
 * not know; and a number too wide, a window bound, a wrong type, an enum
 * value or a key sent twice is read as the MCP lane reads it. One row per
 * case, each against a real server on a loopback port, and a planted value
 * (in a value, or in a field name that is not a plain identifier) must come
 * back on no wire and in no log line. What the server answers whatever the
 * body is connect-responses.
 */
import { toBinary, create } from "@bufbuild/protobuf";
import { Code, type ConnectError } from "@connectrpc/connect";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLASS_CONNECT_CODE, classOf, parse } from "../src/argerror/index.js";
import { SearchMemoriesRequestSchema, type Visibility } from "../src/gen/engram/v1/engram_pb.js";
import { texts, type RunningEngram, type ToolResult } from "./fixtures/mcp-harness.js";
import { grpcFrame, rawCall, type Wire } from "./helpers/raw-rpc.js";
import { AUTH, PLANT, TOKEN, WRITE, jsonBody, startEdgesServer } from "./helpers/planted-value-server.js";

const NOT_APPLICABLE = CLASS_CONNECT_CODE[classOf("not_applicable")];

type Row = {
  name: string;
  procedure: string;
  body: Record<string, unknown>;
  envelope: string;
  /** The same typo as an MCP tool call, and the text it answers; absent when no tool has the call. */
  mcp?: { tool: string; args: Record<string, unknown>; text: string };
};

const NAMELESS = `${PLANT}-name`;
const LONG_NAME = `${PLANT}_${"x".repeat(57)}`; // 65 bytes, letters only: still too long to repeat
const LONGEST_NAME = `Z${"z".repeat(63)}`; // 64 bytes: repeated

const ROWS: Row[] = [
  {
    name: "a misspelt tag filter is refused, not dropped",
    procedure: "SearchMemories",
    body: { query: "x", scope: "a", tag: [`${PLANT}-tag`], k: 2 },
    envelope: "field=tag hint=not_applicable: tag is not an argument of SearchMemories",
    mcp: { tool: "search_memory", args: { query: "x", scope: "a", tag: [`${PLANT}-tag`], k: 2 }, text: "field=tag hint=not_applicable: tag is not an argument of search_memory" },
  },
  {
    name: "an unknown field is refused before a known field's wrong type",
    procedure: "SearchMemories",
    body: { query: "q", tags: PLANT, tag: ["a"] },
    envelope: "field=tag hint=not_applicable: tag is not an argument of SearchMemories",
    mcp: { tool: "search_memory", args: { query: "q", tags: PLANT, tag: ["a"] }, text: "field=tag hint=not_applicable: tag is not an argument of search_memory" },
  },
  {
    name: "the first unknown field in the order sent is the one named",
    procedure: "GetMemory",
    body: { id: "x", offset: 5, limt: PLANT },
    envelope: "field=offset hint=not_applicable: offset is not an argument of GetMemory",
    mcp: { tool: "get_memory", args: { id: "x", offset: 5, limt: PLANT }, text: "field=offset hint=not_applicable: offset is not an argument of get_memory" },
  },
  {
    name: "a camelCase typo is named as sent, and still reads as an envelope",
    procedure: "ListMemories",
    body: { scope: "a", includeArchive: true, cursorMode: true },
    envelope: "field=includeArchive hint=not_applicable: includeArchive is not an argument of ListMemories",
    mcp: { tool: "list_memory", args: { scope: "a", includeArchive: true }, text: "field=includeArchive hint=not_applicable: includeArchive is not an argument of list_memory" },
  },
  {
    name: "an unknown field set to null still counts as sent",
    procedure: "ListTags",
    body: { scope: "a", limt: null },
    envelope: "field=limt hint=not_applicable: limt is not an argument of ListTags",
    mcp: { tool: "list_tags", args: { scope: "a", limt: null }, text: "field=limt hint=not_applicable: limt is not an argument of list_tags" },
  },
  {
    name: "a request message without fields takes none",
    procedure: "ListScopes",
    body: { scope: PLANT },
    envelope: "field=scope hint=not_applicable: scope is not an argument of ListScopes",
  },
  {
    name: "a name that is not a plain identifier is reported under request",
    procedure: "GetMemory",
    body: { id: "x", [NAMELESS]: 1 },
    envelope: "field=request hint=not_applicable: an argument name is not an argument of GetMemory",
    mcp: { tool: "get_memory", args: { id: "x", [NAMELESS]: 1 }, text: "field=arguments hint=not_applicable: an argument name is not an argument of get_memory" },
  },
  {
    // JSON.parse keeps the key as the body's own, as a client's JSON text carries it.
    name: "an argument named __proto__ is refused, not dropped",
    procedure: "GetMemory",
    body: JSON.parse('{"id":"x","__proto__":{"limit":3}}') as Record<string, unknown>,
    envelope: "field=__proto__ hint=not_applicable: __proto__ is not an argument of GetMemory",
    mcp: {
      tool: "get_memory",
      args: JSON.parse('{"id":"x","__proto__":{"limit":3}}') as Record<string, unknown>,
      text: "field=__proto__ hint=not_applicable: __proto__ is not an argument of get_memory",
    },
  },
  {
    name: "a name over 64 bytes is reported under request",
    procedure: "GetMemory",
    body: { id: "x", [LONG_NAME]: 1 },
    envelope: "field=request hint=not_applicable: an argument name is not an argument of GetMemory",
    mcp: { tool: "get_memory", args: { id: "x", [LONG_NAME]: 1 }, text: "field=arguments hint=not_applicable: an argument name is not an argument of get_memory" },
  },
  {
    name: "a plain name of exactly 64 bytes is repeated",
    procedure: "GetMemory",
    body: { id: "x", [LONGEST_NAME]: 1 },
    envelope: `field=${LONGEST_NAME} hint=not_applicable: ${LONGEST_NAME} is not an argument of GetMemory`,
    mcp: { tool: "get_memory", args: { id: "x", [LONGEST_NAME]: 1 }, text: `field=${LONGEST_NAME} hint=not_applicable: ${LONGEST_NAME} is not an argument of get_memory` },
  },
  {
    name: "an unknown key inside a citation is named by its path",
    procedure: "StoreMemory",
    body: { ...WRITE, citations: [{ kind: "file", ref: "a", line: PLANT }] },
    envelope: "field=citations[i] hint=not_applicable: citation 0: line is not a field of a citation",
    mcp: {
      tool: "store_memory",
      args: { ...WRITE, citations: [{ kind: "file", ref: "a", line: PLANT }] },
      text: "field=citations[i] hint=not_applicable: citation 0: line is not a field of a citation",
    },
  },
  {
    name: "an unknown key that is not a plain identifier inside a later citation",
    procedure: "StoreDiscovery",
    body: { content: `c ${PLANT}`, kind: "map", scope: "discovery:edges", citations: [{ kind: "file", ref: "a" }, { kind: "file", ref: "b", [NAMELESS]: "v" }] },
    envelope: "field=citations[i] hint=not_applicable: citation 1: a field it has is not a field of a citation",
    mcp: {
      tool: "store_discovery",
      args: { content: `c ${PLANT}`, kind: "map", scope: "discovery:edges", citations: [{ kind: "file", ref: "a" }, { kind: "file", ref: "b", [NAMELESS]: "v" }] },
      text: "field=citations[i] hint=not_applicable: citation 1: a field it has is not a field of a citation",
    },
  },
  {
    name: "top-level unknown fields are refused before nested ones",
    procedure: "StoreMemory",
    body: { ...WRITE, citations: [{ kind: "file", ref: "a", line: 1 }], actor: PLANT },
    envelope: "field=actor hint=not_applicable: actor is not an argument of StoreMemory",
    mcp: {
      tool: "store_memory",
      args: { ...WRITE, citations: [{ kind: "file", ref: "a", line: 1 }], actor: PLANT },
      text: "field=actor hint=not_applicable: actor is not an argument of store_memory",
    },
  },
];

/** The JSON wires: Connect, gRPC-Web and gRPC, each with its own framing. */
const JSON_WIRES: Array<{ wire: Wire; framed: boolean }> = [
  { wire: "connect-json", framed: false },
  { wire: "grpc-web", framed: true },
  { wire: "grpc", framed: true },
];

let srv: RunningEngram;
let mcp: Client;

beforeAll(async () => {
  srv = await startEdgesServer();
  mcp = await srv.mcp(TOKEN);
});
afterAll(async () => srv?.close());

describe("unknown JSON fields on the Connect lane (issue 24 item 1)", () => {
  it("has unique row names, and not_applicable is failed_precondition in the vocabulary", () => {
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
    expect(Code[NOT_APPLICABLE]).toBe(Code[Code.FailedPrecondition]);
    for (const r of ROWS) expect(parse(r.envelope)).toMatchObject({ kind: "envelope", hint: "not_applicable" });
  });

  const cases = ROWS.flatMap((row) => JSON_WIRES.map((w) => ({ ...row, ...w, label: `${w.wire}: ${row.name}` })));

  it.each(cases)("$label", async (row) => {
    const a = await rawCall(srv.url, row.wire, row.procedure, jsonBody(row.body, row.framed), { headers: AUTH, json: true });
    expect({ code: a.code === undefined ? "ok" : Code[a.code], message: a.message }).toEqual({ code: Code[NOT_APPLICABLE], message: row.envelope });
    if (row.wire === "connect-json") {
      expect(a.status).toBe(400);
      expect(a.raw).toContain('"reason":"NOT_APPLICABLE"');
    }
    expect(a.raw).not.toContain(PLANT);
  });

  it.each(ROWS.filter((r) => r.mcp))("MCP, the same typo: $name", async (row) => {
    const r = (await mcp.callTool({ name: row.mcp!.tool, arguments: row.mcp!.args })) as ToolResult;
    expect(r.isError).toBe(true);
    expect(texts(r)).toEqual([row.mcp!.text]);
    // One sentence for both lanes: only the operation's name (and MCP's pseudo-field) differ.
    const connect = row.envelope.replace(`of ${row.procedure}`, `of ${row.mcp!.tool}`).replace("field=request ", "field=arguments ");
    expect(row.mcp!.text).toBe(connect);
  });

  it("writes nothing for a refused body, on any wire", async () => {
    const r = await srv.connect(TOKEN).listMemories({ scope: "project:edges" });
    expect(r.memories).toEqual([]);
  });

  it("echoes no planted value in any log line", () => {
    expect(srv.log.text()).not.toContain(PLANT);
  });
});

/**
 * Issue 24 item 3: a whole number no uint64 holds. Only JSON can carry one,
 * and every JSON lane answers it as MCP answers the same number: out of
 * range with the field's cap sentence (the core's cap for k and limit, in
 * the core's order of checks; the wire's own maximum for offset, which has
 * no other), never `format` and never the number.
 */
const BIG = "99999999999999999999999";
const TWO_TO_64 = "18446744073709551616";
/** An integer literal too long for a double: JSON.parse makes it Infinity. */
const HUGE = `1${"0".repeat(400)}`;
const capOf = (field: string) => `field=${field} hint=out_of_range: ${field} exceeds the maximum of 1000`;
const OFFSET_CAP = "field=offset hint=out_of_range: offset exceeds the maximum of 18446744073709551615";

type WideRow = {
  name: string;
  procedure: string;
  /** The same arguments, as JSON text, for this MCP tool; absent when the tool has no such argument or takes no strings for it. */
  tool?: string;
  args: string;
  envelope: string;
};

const WIDE_ROWS: WideRow[] = [
  { name: "search: k past uint64", procedure: "SearchMemories", tool: "search_memory", args: `{"query":"x","scope":"a","k":${BIG}}`, envelope: capOf("k") },
  { name: "search: k as a decimal string past uint64", procedure: "SearchMemories", args: `{"query":"x","scope":"a","k":"${BIG}"}`, envelope: capOf("k") },
  { name: "search: k too long for a double", procedure: "SearchMemories", tool: "search_memory", args: `{"query":"x","scope":"a","k":${HUGE}}`, envelope: capOf("k") },
  {
    name: "search: the query is checked before k, as for any k",
    procedure: "SearchMemories",
    tool: "search_memory",
    args: `{"scope":"a","k":${BIG}}`,
    envelope: "field=query hint=required: query is required",
  },
  { name: "list: limit past uint64", procedure: "ListMemories", tool: "list_memory", args: `{"scope":"a","limit":${BIG}}`, envelope: capOf("limit") },
  { name: "list: offset one past uint64", procedure: "ListMemories", args: `{"scope":"a","offset":"${TWO_TO_64}"}`, envelope: OFFSET_CAP },
  { name: "list: offset past uint64 as a number", procedure: "ListMemories", args: `{"scope":"a","offset":${BIG}}`, envelope: OFFSET_CAP },
  {
    name: "list: a field of the wrong type is named before a range",
    procedure: "ListMemories",
    args: `{"scope":"a","offset":${BIG},"tags":"x"}`,
    envelope: "field=tags hint=format: tags must be a list of strings",
  },
  { name: "related: k past uint64", procedure: "RelatedMemories", tool: "related_memories", args: `{"id":"x","k":${BIG}}`, envelope: capOf("k") },
  { name: "list-tags: limit 2^64", procedure: "ListTags", tool: "list_tags", args: `{"limit":${TWO_TO_64}}`, envelope: capOf("limit") },
  { name: "list-scheduled: limit past uint64", procedure: "ListScheduled", tool: "list_scheduled", args: `{"scope":"a","limit":${BIG}}`, envelope: capOf("limit") },
  {
    name: "search-discoveries: k past uint64",
    procedure: "SearchDiscoveries",
    tool: "search_discovery",
    args: `{"query":"x","scope":"discovery:x","k":${BIG}}`,
    envelope: capOf("k"),
  },
];

/** A tools/call as raw JSON-RPC text, so the number goes out exactly as written. */
async function rawToolCall(tool: string, args: string): Promise<{ isError?: boolean; text: string[]; raw: string }> {
  const res = await fetch(`${srv.url}/mcp`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${tool}","arguments":${args}}}`,
  });
  const raw = await res.text();
  const reply = JSON.parse(raw) as { result: { isError?: boolean; content: { text: string }[] } };
  return { isError: reply.result.isError, text: reply.result.content.map((c) => c.text), raw };
}

describe("a number no uint64 holds (issue 24 item 3)", () => {
  it("has unique row names, and every envelope is out_of_range, invalid_argument, or the check that comes first", () => {
    expect(new Set(WIDE_ROWS.map((r) => r.name)).size).toBe(WIDE_ROWS.length);
    expect(Code[CLASS_CONNECT_CODE[classOf("out_of_range")]]).toBe(Code[Code.InvalidArgument]);
  });

  const cases = WIDE_ROWS.flatMap((row) => JSON_WIRES.map((w) => ({ ...row, ...w, label: `${w.wire}: ${row.name}` })));

  it.each(cases)("$label", async (row) => {
    const body = row.framed ? grpcFrame(Buffer.from(row.args)) : Buffer.from(row.args);
    const a = await rawCall(srv.url, row.wire, row.procedure, body, { headers: AUTH, json: true });
    expect({ code: a.code === undefined ? "ok" : Code[a.code], message: a.message }).toEqual({ code: Code[Code.InvalidArgument], message: row.envelope });
    for (const n of [BIG, TWO_TO_64, HUGE.slice(0, 30)]) expect(a.raw).not.toContain(n);
  });

  it.each(WIDE_ROWS.filter((r) => r.tool))("MCP, the same JSON text: $name", async (row) => {
    const r = await rawToolCall(row.tool!, row.args);
    expect({ isError: r.isError, text: r.text }).toEqual({ isError: true, text: [row.envelope] });
    for (const n of [BIG, TWO_TO_64, HUGE.slice(0, 30)]) expect(r.raw).not.toContain(n);
  });

  it.each(JSON_WIRES)("$wire: the largest number a uint64 holds still reaches the core, which takes it as an offset", async ({ wire, framed }) => {
    const a = await rawCall(srv.url, wire, "ListMemories", jsonBody({ scope: "a", offset: "18446744073709551615" }, framed), { headers: AUTH, json: true });
    expect({ code: a.code, message: a.message }).toEqual({ code: undefined, message: "" });
  });

  it("echoes none of the numbers in any log line", () => {
    for (const n of [BIG, TWO_TO_64, HUGE.slice(0, 30)]) expect(srv.log.text()).not.toContain(n);
  });
});

describe("what the unknown-field check lets through", () => {
  it.each(JSON_WIRES)("$wire: proto names and JSON names alike", async ({ wire, framed }) => {
    for (const [procedure, body] of [
      ["SearchMemories", { query: "q", crossSpine: true, include_archived: false }],
      ["SearchMemories", { query: "q", cross_spine: true, includeArchived: false }],
      ["ListMemories", { scope: "s", page_token: "", cursorMode: false, include_scheduled: true, includeSuperseded: true }],
      ["StoreMemory", { ...WRITE, content: `kept ${wire}`, base_dir: "/b", idempotencyKey: `k-${wire}`, citations: [{ kind: "file", ref: "a", locator: "1" }] }],
      ["ScheduleMemory", { ...WRITE, content: `later ${wire}`, notBefore: "2999-01-01T00:00:00Z", not_after: "2999-02-01T00:00:00Z" }],
    ] as const) {
      const a = await rawCall(srv.url, wire, procedure, jsonBody(body, framed), { headers: AUTH, json: true });
      expect({ procedure, code: a.code, message: a.message }).toEqual({ procedure, code: undefined, message: "" });
    }
  });

  it.each(["connect-proto", "grpc-web", "grpc"] as const)("%s: binary protobuf skips a field number it does not know", async (wire) => {
    const known = toBinary(SearchMemoriesRequestSchema, create(SearchMemoriesRequestSchema, { query: "q", crossSpine: true }));
    // Field 999, a string holding the plant: what a newer client's new field looks like to this server.
    const value = Buffer.from(PLANT);
    const unknown = Buffer.concat([Buffer.from([0xba, 0x3e, value.length]), value]);
    const msg = Buffer.concat([known, unknown]);
    const a = await rawCall(srv.url, wire, "SearchMemories", wire === "connect-proto" ? msg : grpcFrame(msg), { headers: AUTH });
    expect({ code: a.code, message: a.message }).toEqual({ code: undefined, message: "" });
    expect(a.raw).not.toContain(PLANT);
  });
});

describe("a schedule window bound, read alike on every lane", () => {
  const write = { content: "window", source: "user-said", category: "decision" };

  it.each(["2030-02-30T00:00:00Z", "2030-01-01T24:00:00Z", "2030-01-01t00:00:00z", "2030-01-01T00:00:00.1234567891Z"])(
    "%s is the not_after format envelope on Connect JSON and MCP, never another instant",
    async (bound) => {
      const body = JSON.stringify({ ...write, scope: "project:window-bad", not_after: bound });
      const a = await rawCall(srv.url, "connect-json", "ScheduleMemory", Buffer.from(body), { headers: AUTH, json: true });
      const r = await rawToolCall("schedule_memory", body);
      expect({ connect: a.message, mcp: r.text }).toEqual({ connect: "field=not_after hint=format: not_after must be RFC3339", mcp: ["field=not_after hint=format: not_after must be RFC3339"] });
    },
  );

  it("a not_after a tenth of a millisecond past a second widens the window to the next second on every lane", async () => {
    const body = (scope: string) => JSON.stringify({ ...write, scope, not_before: "2030-01-01T00:00:00Z", not_after: "2030-01-01T00:00:00.0001Z" });
    const viaJson = await rawCall(srv.url, "connect-json", "ScheduleMemory", Buffer.from(body("project:window-json")), { headers: AUTH, json: true });
    expect(viaJson.code).toBeUndefined();
    expect((await rawToolCall("schedule_memory", body("project:window-mcp"))).isError).toBeFalsy();
    const c = srv.connect(TOKEN);
    await c.scheduleMemory({ ...write, scope: "project:window-binary", notBefore: { seconds: 1893456000n, nanos: 0 }, notAfter: { seconds: 1893456000n, nanos: 100_000 } });
    for (const scope of ["project:window-json", "project:window-mcp", "project:window-binary"]) {
      const [m] = (await c.listScheduled({ scope })).memories;
      expect({ scope, notAfter: m?.notAfter?.seconds }).toEqual({ scope, notAfter: 1893456001n });
    }
  });
});

describe("several wrongly typed fields, or a wrongly typed citation field, in one JSON body", () => {
  it.each([
    { procedure: "SearchMemories", tool: "search_memory", args: '{"tags":"x","query":5}', want: "field=query hint=format: query must be a string" },
    { procedure: "SearchMemories", tool: "search_memory", args: '{"scope":5,"k":"x"}', want: "field=k hint=format: k must be a non-negative integer" },
    {
      procedure: "StoreMemory",
      tool: "store_memory",
      args: '{"content":"c","scope":"project:x","source":"user-said","category":"decision","citations":[{"kind":"file","ref":5}]}',
      want: "field=citations[i].ref hint=format: citation 0: ref must be a string",
    },
  ])("$procedure names the field MCP names first: $want", async ({ procedure, tool, args, want }) => {
    const a = await rawCall(srv.url, "connect-json", procedure, Buffer.from(args), { headers: AUTH, json: true });
    const r = await rawToolCall(tool, args);
    expect({ connect: a.message, mcp: r.text }).toEqual({ connect: want, mcp: [want] });
  });
});

describe("a visibility value SetVisibility does not have", () => {
  const ENUM = "field=visibility hint=enum: visibility must be one of VISIBILITY_UNSPECIFIED|VISIBILITY_PRIVATE|VISIBILITY_SHARED";

  it.each(['"NOPE"', "5"])("JSON %s is the enum envelope, not \"visibility is required\"", async (value) => {
    const a = await rawCall(srv.url, "connect-json", "SetVisibility", Buffer.from(`{"id":"0000000000","visibility":${value}}`), { headers: AUTH, json: true });
    expect({ code: a.code === undefined ? "ok" : Code[a.code], message: a.message }).toEqual({ code: Code[Code.InvalidArgument], message: ENUM });
  });

  it("binary 5 is the same envelope, and an absent one is still required", async () => {
    const c = srv.connect(TOKEN);
    const refusal = (p: Promise<unknown>) => p.then(() => "ok", (e: ConnectError) => e.rawMessage);
    expect(await refusal(c.setVisibility({ id: "0000000000", visibility: 5 as Visibility }))).toBe(ENUM);
    expect(await refusal(c.setVisibility({ id: "0000000000" }))).toBe("field=visibility hint=required: visibility is required");
  });
});

describe("a JSON key sent twice", () => {
  const body = (scope: string) => `{"content":"the first value","content":"the last value","scope":"${scope}","source":"user-said","category":"decision"}`;

  it.each(JSON_WIRES)("$wire: is read as its last value, as the MCP lane reads it, not refused in the library's words", async ({ wire, framed }) => {
    const scope = `project:twice-${wire}`;
    const text = Buffer.from(body(scope));
    const a = await rawCall(srv.url, wire, "StoreMemory", framed ? grpcFrame(text) : text, { headers: AUTH, json: true });
    expect({ code: a.code, message: a.message }).toEqual({ code: undefined, message: "" });
    const listed = await srv.connect(TOKEN).listMemories({ scope, full: true });
    expect(listed.memories.map((m) => m.content)).toEqual(["the last value"]);
  });

  it("MCP: the same body stores the last value", async () => {
    const r = await rawToolCall("store_memory", body("project:twice-mcp"));
    expect(r.isError).toBeFalsy();
    const listed = await srv.connect(TOKEN).listMemories({ scope: "project:twice-mcp", full: true });
    expect(listed.memories.map((m) => m.content)).toEqual(["the last value"]);
  });
});
