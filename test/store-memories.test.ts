/**
 * StoreMemories and store_memories: a batch of records, each refused or
 * stored exactly as StoreMemory would, on the real server over Connect and
 * MCP, and `engram store --from-file` through the built CLI. Runs on the
 * embedded store and on the Qdrant fake.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECT_CODE_NAME } from "../src/argerror/index.js";
import { DEFAULT_LIMITS } from "../src/core/index.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { memory } from "./fixtures/mcp-harness.js";
import { runEngram } from "./helpers/run-engram.js";

/** The fake embedder, telling the test when a batch has reached it. */
class WatchedEmbedder extends FakeEmbedder {
  onEmbed: (() => void) | undefined;
  override async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const hook = this.onEmbed;
    this.onEmbed = undefined;
    hook?.();
    return super.embedDocuments(texts);
  }
}

const embedder = new WatchedEmbedder(64);
let srv: TestServer;
let mcp: Client;
const tmp = mkdtempSync(join(tmpdir(), "engram-store-memories-"));

beforeAll(async () => {
  srv = await startTestServer({ embedder });
  mcp = new Client({ name: "engram-test", version: "0.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
});
afterAll(async () => {
  await mcp.close();
  await srv.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** What StoreMemory answers for one record alone: its code name and text. */
async function storeMemoryRefusal(rec: Record<string, unknown>): Promise<{ code: string; message: string }> {
  try {
    await srv.client().storeMemory(rec);
  } catch (err) {
    const ce = ConnectError.from(err);
    return { code: CONNECT_CODE_NAME[ce.code], message: ce.rawMessage };
  }
  throw new Error("StoreMemory stored a record the test meant to be refused");
}

/** What the store_memory tool answers for one record alone. */
async function storeMemoryToolText(args: Record<string, unknown>): Promise<string> {
  const r = await mcp.callTool({ name: "store_memory", arguments: args });
  expect(r.isError).toBe(true);
  return (r.content as { text: string }[])[0]!.text;
}

async function countIn(scope: string): Promise<number> {
  const r = await srv.client().listMemories({ scope, limit: 1000n });
  return Number(r.total);
}

type McpRow = { id?: string; short_id?: string; error?: { code: string; message: string } };

async function storeMemoriesTool(args: Record<string, unknown>): Promise<{ isError: boolean; rows: McpRow[]; text: string }> {
  const r = await mcp.callTool({ name: "store_memories", arguments: args });
  const text = (r.content as { text: string }[])[0]!.text;
  return { isError: r.isError === true, rows: ((r.structuredContent as { results?: McpRow[] } | undefined)?.results ?? []), text };
}

describe("StoreMemories over Connect", () => {
  it("stores the good records, refuses each bad one as StoreMemory would, and answers in request order", async () => {
    const scope = "project:batch-connect";
    const good = { content: "first good record", scope, source: "user-said", category: "decision" };
    const noContent = { scope, source: "user-said", category: "decision" };
    const tooManyTags = { ...good, content: "tagged", tags: Array.from({ length: 129 }, (_, i) => `t${i}`) };
    const reserved = { ...good, content: "a rule in disguise", scope: "rule:repo:x" };
    const res = await srv.client().storeMemories({ memories: [good, noContent, { ...good, content: "second good record" }, tooManyTags, reserved] });

    expect(res.results).toHaveLength(5);
    expect(res.results.map((r) => (r.error ? "refused" : "stored"))).toEqual(["stored", "refused", "stored", "refused", "refused"]);
    for (const [i, bad] of [[1, noContent], [3, tooManyTags], [4, reserved]] as const) {
      expect(res.results[i]!.id).toBe("");
      expect({ code: res.results[i]!.error!.code, message: res.results[i]!.error!.message }).toEqual(await storeMemoryRefusal(bad));
    }
    expect(res.results[1]!.error!.message).toBe("field=content hint=required: content is required");
    for (const i of [0, 2]) {
      const got = await srv.client().getMemory({ id: res.results[i]!.shortId });
      expect(got.memory?.id).toBe(res.results[i]!.id);
    }
    expect(await countIn(scope)).toBe(2);
  });

  it("refuses a record whose JSON does not decode in StoreMemory's words for it alone, and stores the rest of the batch", async () => {
    const scope = "project:batch-json";
    const post = async (method: string, body: unknown) => {
      const r = await fetch(`${srv.url}/engram.v1.EngramService/${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as { code?: string; message?: string; results?: { id?: string; error?: { code: string; message: string } }[] } };
    };
    const good = { content: "decodes", scope, source: "user-said", category: "decision" };
    const misspelt = { ...good, content: "misspelt key", tag: "marker-value-1" };
    const wrongType = { ...good, content: "wrong type", tags: "marker-value-2" };
    const badCitation = { ...good, content: "bad citation", citations: [{ kind: "file", ref: "a.ts", line: "marker-value-3" }] };
    const res = await post("StoreMemories", { memories: [good, misspelt, wrongType, badCitation, { ...good, content: "decodes too" }] });

    expect(res.status).toBe(200);
    const results = res.body.results!;
    expect(results.map((r) => (r.error ? "refused" : "stored"))).toEqual(["stored", "refused", "refused", "refused", "stored"]);
    for (const [i, bad] of [[1, misspelt], [2, wrongType], [3, badCitation]] as const) {
      const alone = await post("StoreMemory", bad);
      expect(results[i]!.error).toEqual({ code: alone.body.code, message: alone.body.message });
    }
    expect(results[1]!.error!.message).toBe("field=tag hint=not_applicable: tag is not an argument of StoreMemory");
    expect(results[2]!.error).toEqual({ code: "invalid_argument", message: "field=tags hint=format: tags must be a list of strings" });
    expect(JSON.stringify(res.body)).not.toMatch(/marker-value/);
    expect(await countIn(scope)).toBe(2);

    // A list that is not a list of records is refused as a whole, in MCP's words for the same JSON.
    expect((await post("StoreMemories", { memories: "marker-value-4" })).body).toMatchObject({ code: "invalid_argument", message: "field=memories hint=format: memories must be a list of objects" });
    expect((await post("StoreMemories", { memories: [good], stop_at_first_error: "yes" })).body).toMatchObject({ code: "invalid_argument", message: "field=stop_at_first_error hint=format: stop_at_first_error must be true or false" });

    // With stop_at_first_error, the undecodable record is where the batch ends.
    const stopped = await post("StoreMemories", { memories: [{ ...good, content: "before" }, misspelt, { ...good, content: "after" }], stopAtFirstError: true });
    expect(stopped.body.results!.map((r) => (r.error ? r.error.message : "stored"))).toEqual(["stored", results[1]!.error!.message]);
    expect(await countIn(scope)).toBe(3);
  });

  it("replays a keyed batch record by record, and refuses a key reused with other content in StoreMemory's words", async () => {
    const scope = "project:batch-keys";
    const keyed = (n: number) => ({ content: `keyed record ${n}`, scope, source: "agent-inferred", category: "gotcha", idempotencyKey: `k${n}` });
    const batch = [keyed(1), keyed(2), keyed(3)];
    const first = await srv.client().storeMemories({ memories: batch });
    const again = await srv.client().storeMemories({ memories: batch });
    expect(again.results.map((r) => [r.id, r.shortId])).toEqual(first.results.map((r) => [r.id, r.shortId]));
    expect(first.results.every((r) => r.id !== "" && r.error === undefined)).toBe(true);
    expect(await countIn(scope)).toBe(3);

    // The same key twice in one batch is one record; with other content it is StoreMemory's conflict.
    const clash = { ...keyed(2), content: "other content under key 2" };
    const mixed = await srv.client().storeMemories({ memories: [keyed(4), keyed(4), clash] });
    expect(mixed.results[1]!.id).toBe(mixed.results[0]!.id);
    expect({ code: mixed.results[2]!.error!.code, message: mixed.results[2]!.error!.message }).toEqual(await storeMemoryRefusal(clash));
    expect(await countIn(scope)).toBe(4);
  });

  it("refuses a batch over the cap, an empty one, or one over the body limit, as a whole with one envelope, writing nothing", async () => {
    const scope = "project:batch-cap";
    const over = Array.from({ length: DEFAULT_LIMITS.maxBatchRecords + 1 }, (_, i) => ({ content: `r${i}`, scope, source: "user-said", category: "decision" }));
    const err = await srv.client().storeMemories({ memories: over }).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(err?.rawMessage).toBe(`field=memories hint=out_of_range: memories exceeds the maximum of ${DEFAULT_LIMITS.maxBatchRecords}`);
    expect(CONNECT_CODE_NAME[err!.code]).toBe("invalid_argument");
    const empty = await srv.client().storeMemories({ memories: [] }).catch((e: unknown) => ConnectError.from(e));
    expect((empty as ConnectError).rawMessage).toBe("field=memories hint=required: memories is required");
    // Under the cap but over the body limit: the request gate's envelope, before any record is read.
    const full = (i: number) => ({ content: `${i}`.padEnd(DEFAULT_LIMITS.maxContentBytes, "x"), scope, source: "user-said", category: "decision" });
    const heavy = await srv.client().storeMemories({ memories: Array.from({ length: 70 }, (_, i) => full(i)) }).catch((e: unknown) => ConnectError.from(e));
    expect((heavy as ConnectError).rawMessage).toMatch(/^field=request hint=too_long: request too large: \d+ bytes \(max 4194304\)$/);
    expect(await countIn(scope)).toBe(0);
  });

  it("with stop_at_first_error writes nothing after the first refused record and ends the results with it", async () => {
    const scope = "project:batch-stop";
    const rec = (content: string) => ({ content, scope, source: "user-said", category: "decision" });
    const res = await srv.client().storeMemories({ memories: [rec("one"), { ...rec("two"), source: "hearsay" }, rec("three")], stopAtFirstError: true });
    expect(res.results).toHaveLength(2);
    expect(res.results[0]!.error).toBeUndefined();
    expect(res.results[1]!.error?.message).toBe((await storeMemoryRefusal({ ...rec("two"), source: "hearsay" })).message);
    expect(await countIn(scope)).toBe(1);
  });

  it("keeps /healthz answering first while a batch of maximum-size records is written", async () => {
    const scope = "project:batch-large";
    const big = (i: number) => `${i} `.padEnd(DEFAULT_LIMITS.maxContentBytes, i % 2 ? " alpha beta" : " gamma delta");
    // As many full-size records as the default 4 MiB body holds.
    const memories = Array.from({ length: 56 }, (_, i) => ({ content: big(i), scope, source: "user-said", category: "decision" }));
    const order: string[] = [];
    let health: Promise<void> | undefined;
    embedder.onEmbed = () => {
      health = fetch(`${srv.url}/healthz`).then(async (r) => {
        await r.arrayBuffer();
        order.push(`healthz ${r.status}`);
      });
    };
    await srv.client().storeMemories({ memories }).then((r) => order.push(`batch ${r.results.filter((x) => x.error === undefined).length}`));
    await health;
    expect(order).toEqual(["healthz 200", "batch 56"]);
  });
});

describe("store_memories over MCP", () => {
  it("answers each record with what store_memory answers for it alone, in order", async () => {
    const scope = "project:batch-mcp";
    const bad = [memory({ scope, content: undefined }), memory({ scope, tag: ["x"] }), memory({ scope, tags: "x" }), memory({ scope, summary: "two\nlines" })];
    const r = await storeMemoriesTool({ memories: [memory({ scope }), ...bad, memory({ scope, content: "a null is not sent", summary: null })] });
    expect(r.isError).toBe(false);
    expect(r.text).toBe("stored 2 of 6");
    expect(r.rows[0]!.id).toBeTruthy();
    for (const [i, args] of bad.entries()) {
      expect(r.rows[i + 1]!.error!.message, `record ${i + 1}`).toBe(await storeMemoryToolText(args));
    }
    expect(r.rows[1]!.error!.code).toBe("invalid_argument");
    expect(r.rows[5]!.short_id).toBeTruthy();
    expect(await countIn(scope)).toBe(2);
  });

  it("refuses a list over the cap as one tool error, and replays a keyed batch", async () => {
    const scope = "project:batch-mcp-keys";
    const over = await storeMemoriesTool({ memories: Array.from({ length: DEFAULT_LIMITS.maxBatchRecords + 1 }, () => memory({ scope })) });
    expect(over.isError).toBe(true);
    expect(over.text).toBe(`field=memories hint=out_of_range: memories exceeds the maximum of ${DEFAULT_LIMITS.maxBatchRecords}`);
    const batch = { memories: [memory({ scope, idempotency_key: "a" }), memory({ scope, content: "other", idempotency_key: "b" })] };
    const first = await storeMemoriesTool(batch);
    const again = await storeMemoriesTool(batch);
    expect(again.rows).toEqual(first.rows);
    expect(again.text).toBe("stored 2 of 2");
    expect(await countIn(scope)).toBe(2);
  });

  it("counts the records sent in its summary, also when stop_at_first_error ends the results early", async () => {
    const scope = "project:batch-mcp-stop";
    const r = await storeMemoriesTool({ memories: [memory({ scope }), memory({ scope, content: undefined }), memory({ scope, content: "never written" })], stop_at_first_error: true });
    expect(r.rows).toHaveLength(2);
    expect(r.text).toBe("stored 1 of 3");
    expect(await countIn(scope)).toBe(1);
  });
});

describe("engram store --from-file", () => {
  const env = () => ({ ENGRAM_SERVER_URL: srv.url });
  const line = (o: Record<string, unknown>) => JSON.stringify(o);

  it("stores every line in order and prints one line per record", async () => {
    const scope = "project:from-file";
    const file = join(tmp, "good.jsonl");
    writeFileSync(file, [line(memory({ scope, content: "line one" })), "", line(memory({ scope, content: "line three", tags: ["a"] }))].join("\n") + "\n");
    const run = await runEngram(["store", "--from-file", file, "--output", "json"], env());
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { results: { id: string; short_id: string }[] };
    expect(doc.results).toHaveLength(2);
    const got = await srv.client().getMemory({ id: doc.results[1]!.id });
    expect(got.memory?.content).toBe("line three");
  });

  it("counts its progress against every record of the file, not the batch just sent", async () => {
    const scope = "project:from-file-progress";
    const file = join(tmp, "progress.jsonl");
    // Two batches: 256 records, then the rest.
    writeFileSync(file, Array.from({ length: 300 }, (_, i) => line(memory({ scope, content: `progress ${i}` }))).join("\n") + "\n");
    const run = await runEngram(["store", "--from-file", file, "--output", "json"], { ...env(), ENGRAM_PROGRESS: "always" });
    expect(run.code).toBe(0);
    const lines = run.stderr.split("\n").filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l).toMatch(/^engram: stored (256|300)\/300 \(\d+\/s\)$/);
    expect(lines.at(-1)).toMatch(/^engram: stored 300\/300 /);
  });

  it("stops at a line the server refuses: its number and envelope, exit 2, nothing from it on written", async () => {
    const scope = "project:from-file-bad";
    const file = join(tmp, "server-bad.jsonl");
    writeFileSync(file, [line(memory({ scope, content: "kept" })), line(memory({ scope, source: undefined })), line(memory({ scope, content: "never" }))].join("\n"));
    const run = await runEngram(["store", "--from-file", file], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("engram: line 2: field=source hint=required: source is required; nothing from this line on was written (1 record(s) stored before it)\n");
    expect(await countIn(scope)).toBe(1);
  });

  it("names the line a request too large for the server was refused at, with nothing from it on written", async () => {
    const scope = "project:from-file-huge";
    const file = join(tmp, "huge.jsonl");
    const huge = memory({ scope, content: "x".repeat(4_300_000) });
    writeFileSync(file, [line(memory({ scope, content: "one" })), line(memory({ scope, content: "two" })), line(huge), line(memory({ scope, content: "never" }))].join("\n"));
    const run = await runEngram(["store", "--from-file", file], env());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^engram: line 3: field=request hint=too_long: request too large: \d+ bytes \(max 4194304\); nothing from this line on was written \(2 record\(s\) stored before it\)\n$/);
    expect(await countIn(scope)).toBe(2);
  });

  it("stops at a line that is not a record, naming it with the envelope an agent would get", async () => {
    const scope = "project:from-file-json";
    const file = join(tmp, "local-bad.jsonl");
    writeFileSync(file, [line(memory({ scope, content: "kept" })), line(memory({ scope, content: "kept too" })), "", "{not json", line(memory({ scope, content: "never" }))].join("\n"));
    const run = await runEngram(["store", "--from-file", file], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("engram: line 4: field=arguments hint=format: arguments must be an object; nothing from this line on was written (2 record(s) stored before it)\n");
    expect(await countIn(scope)).toBe(2);

    writeFileSync(file, line(memory({ scope, tag: "x" })));
    const unknown = await runEngram(["store", "--from-file", file], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`engram: line 1: ${await storeMemoryToolText(memory({ scope, tag: "x" }))}; nothing from this line on was written (0 record(s) stored before it)\n`);
  });

  it("refuses --from-file beside a record flag before dialing", async () => {
    const run = await runEngram(["store", "--from-file", join(tmp, "good.jsonl"), "--content", "x"], { ENGRAM_SERVER_URL: "http://127.0.0.1:9" });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("engram: --from-file takes every record from the file; it cannot be combined with the record flags\n");
  });
});
