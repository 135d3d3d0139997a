/**
 * A seeded fuzz over MCP tools/call, in process: a few thousand calls with
 * arguments of every JSON type, planted values, unknown argument names and
 * malformed call envelopes. Every answer must stay inside the vocabulary
 * (an isError envelope with a known hint, a documented sentinel, a success,
 * or the documented -32602 protocol error), none may be an internal error,
 * no rejection and no log line may carry a planted value, and the server
 * must still answer at the end. The seed and the call count are fixed, so a
 * failure reproduces exactly.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INTERNAL_TEXT, SENTINEL_TABLE, parse } from "../src/argerror/index.js";
import { openEngram, type Engram } from "../src/app.js";
import { ANONYMOUS } from "../src/core/index.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { createMcpServer, handlerOf, TOOL_NAMES } from "../src/mcp/index.js";
import { openTestStore } from "./helpers/test-store.js";
import { captureLog } from "./helpers/capture-log.js";
import { mulberry32 } from "./helpers/synthetic-vectors.js";

const SEED = 0x5eed_2026;
const CALLS = 3000;
/** Every planted value carries this marker; no rejection or log line may. */
const MARK = "PLNT7q";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Rng, p: number) => r() < p;

function planted(r: Rng): string {
  const n = pick(r, [1, 8, 40, 300, 3000, 9000]);
  const body = `${MARK}-${Math.floor(r() * 1e9)}`;
  const s = (body + " ").repeat(Math.ceil(n / (body.length + 1))).slice(0, Math.max(n, body.length));
  return pick(r, [s, `${s}\nsecond line`, ` ${s} `, `rule:repo:${s}`, `discovery:${s}`]);
}

const PLAIN = [
  "",
  "   ",
  "project:fuzz",
  "repo:github.com/acme/api",
  "rule:repo:fuzz",
  "rule:project:fuzz",
  "discovery:repo:fuzz",
  "user-said",
  "agent-inferred",
  "decision",
  "gotcha",
  "rule",
  "discovery",
  "map",
  "fact",
  "file",
  "scheduled",
  "expired",
  "all",
  "2026-01-01T00:00:00Z",
  "2999-01-01T00:00:00Z",
  "yesterday",
  "a\nb",
];
const NUMBERS = [0, 1, 3, 8, 20, 1000, 1001, -1, -0.5, 1.5, 2 ** 53, 1e21];

/** A string that may be sent as an id: never planted, since not-found repeats ids by design. */
function idLike(r: Rng): unknown {
  return pick(r, [
    "a1b2c3d4e5",
    "00000000-0000-4000-8000-000000000001",
    "z".repeat(pick(r, [1, 10, 255, 256, 257, 600])),
    "",
    " ",
    7,
    null,
    ["a1b2c3d4e5"],
  ]);
}

function anyValue(r: Rng, depth = 0): unknown {
  switch (Math.floor(r() * 9)) {
    case 0:
    case 1:
      return planted(r);
    case 2:
      return pick(r, PLAIN);
    case 3:
      return pick(r, NUMBERS);
    case 4:
      return pick(r, [true, false, null]);
    case 5:
      return depth > 3 ? [] : Array.from({ length: pick(r, [0, 1, 2, 5, 130]) }, () => (chance(r, 0.7) ? pick(r, [...PLAIN, planted(r)]) : anyValue(r, depth + 1)));
    case 6:
      return depth > 3
        ? {}
        : Array.from({ length: pick(r, [0, 1, 2, 51]) }, () =>
            chance(r, 0.6) ? { kind: pick(r, ["file", "url", "nope", 3]), ref: pick(r, ["a.ts", "", planted(r), 9]), excerpt: chance(r, 0.2) ? planted(r) : undefined } : anyValue(r, depth + 1),
          );
    case 7:
      return depth > 3 ? {} : { [pick(r, ["kind", "ref", `${MARK} key`, "x"])]: anyValue(r, depth + 1) };
    default:
      return depth > 6 ? "deep" : [[[anyValue(r, depth + 3)]]];
  }
}

const ID_FIELDS = new Set(["id", "ids", "supersedes"]);

function argsFor(r: Rng, tool: string): Record<string, unknown> {
  const names = Object.keys(handlerOf(tool as (typeof TOOL_NAMES)[number])!.input);
  const out: Record<string, unknown> = {};
  for (const n of names) {
    if (!chance(r, 0.6)) continue;
    if (ID_FIELDS.has(n)) out[n] = n === "id" ? idLike(r) : Array.from({ length: pick(r, [0, 1, 3]) }, () => idLike(r));
    else out[n] = anyValue(r);
  }
  if (chance(r, 0.06)) out[pick(r, ["offset", "tag", "owner", "cursor_mode", `${MARK} not an identifier`, `x${MARK}${"y".repeat(70)}`])] = anyValue(r);
  return out;
}

/** A raw tools/call; a few are malformed at the envelope on purpose. */
function callFor(r: Rng, id: number): { message: Record<string, unknown>; malformed: boolean } {
  const tool = pick(r, TOOL_NAMES);
  const roll = r();
  const base = { jsonrpc: "2.0", id, method: "tools/call" };
  if (roll < 0.01) return { message: base, malformed: true };
  if (roll < 0.02) return { message: { ...base, params: [tool] }, malformed: true };
  if (roll < 0.03) return { message: { ...base, params: { name: pick(r, [5, null, [tool], { n: MARK }]), arguments: {} } }, malformed: true };
  if (roll < 0.04) return { message: { ...base, params: { name: tool, arguments: pick(r, [[MARK], MARK, 3, null]) } }, malformed: true };
  if (roll < 0.05) return { message: { ...base, params: { name: `${MARK}_tool`, arguments: {} } }, malformed: true };
  return { message: { ...base, params: { name: tool, arguments: argsFor(r, tool) } }, malformed: false };
}

type Reply = { error?: { code: number; message: string }; result?: { isError?: boolean; content?: { type: string; text?: string }[] } };

let dataDir: string;
let engram: Engram;
let client: InMemoryTransport;
const log = captureLog();
const pending = new Map<number, (m: Reply) => void>();

/** The reply to one request; a request left unanswered is reported as such rather than hanging the run. */
function send(message: Record<string, unknown>): Promise<Reply> {
  return new Promise((resolve) => {
    const id = message.id as number;
    const timer = setTimeout(() => resolve({ error: { code: 0, message: "no answer" } }), 10_000);
    pending.set(id, (m) => {
      clearTimeout(timer);
      pending.delete(id);
      resolve(m);
    });
    void client.send(message as JSONRPCMessage);
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "engram-fuzz-"));
  const { store, env } = await openTestStore({ dataDir, dim: 64 });
  engram = await openEngram({ env, embedder: new FakeEmbedder(64), store, log });
  const server = createMcpServer(engram.core, ANONYMOUS);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = clientSide;
  client.onmessage = (m) => {
    const id = (m as { id?: number }).id;
    if (typeof id === "number") pending.get(id)?.(m as Reply);
  };
  await server.connect(serverSide);
  await client.start();
  const init = await send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "0" } },
  });
  expect(init.error).toBeUndefined();
});

afterAll(async () => {
  await client?.close();
  await engram?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const SENTINEL_PREFIXES = Object.values(SENTINEL_TABLE).map((s) => s.prefix);

describe(`${CALLS} seeded tools/call requests`, () => {
  it("stay inside the vocabulary, never fail internally, never echo a planted value, and leave the server answering", async () => {
    const rand = mulberry32(SEED);
    const outside: string[] = [];
    const echoed: string[] = [];
    const tally = { ok: 0, envelope: 0, sentinel: 0, protocol: 0 };
    for (let i = 1; i <= CALLS; i++) {
      const { message, malformed } = callFor(rand, i);
      const reply = await send(message);
      const where = `call ${i}`;
      if (reply.error) {
        tally.protocol++;
        if (reply.error.code !== -32602 || !malformed) outside.push(`${where}: JSON-RPC ${reply.error.code} ${reply.error.message.slice(0, 200)}`);
        if (reply.error.message.includes(MARK)) echoed.push(`${where}: ${reply.error.message.slice(0, 200)}`);
        continue;
      }
      if (malformed) outside.push(`${where}: a malformed call got a result`);
      const r = reply.result!;
      if (!r.isError) {
        tally.ok++;
        continue;
      }
      const text = (r.content ?? []).map((c) => c.text ?? "").join("\n");
      if ((r.content ?? []).length !== 1) outside.push(`${where}: ${r.content?.length} content items`);
      if (text.includes(MARK)) echoed.push(`${where}: ${text.slice(0, 200)}`);
      if (text.length > 1024) outside.push(`${where}: a rejection of ${text.length} characters`);
      const p = parse(text);
      if (p.kind === "envelope") tally.envelope++;
      else if (text !== INTERNAL_TEXT && SENTINEL_PREFIXES.some((s) => text.startsWith(s))) tally.sentinel++;
      else outside.push(`${where}: ${text.slice(0, 200)}`);
    }
    expect(outside).toEqual([]);
    expect(echoed).toEqual([]);
    // The fuzz reached every kind of answer, not just the first check of each tool.
    expect(tally.ok).toBeGreaterThan(50);
    expect(tally.envelope).toBeGreaterThan(1000);
    expect(tally.sentinel).toBeGreaterThan(10);
    expect(tally.protocol).toBeGreaterThan(50);
    expect(log.text()).not.toContain(MARK);
    expect(log.lines.filter((l) => l.includes("tool call failed"))).toEqual([]);

    const alive = await send({ jsonrpc: "2.0", id: CALLS + 1, method: "tools/call", params: { name: "list_tags", arguments: {} } });
    expect(alive.result?.isError).toBeFalsy();
  }, 120_000);
});
