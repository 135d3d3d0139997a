/**
 * Auto summaries end to end, on the store this run tests (embedded, or the
 * Qdrant fake): `engram summarize-missing` as the real binary against a
 * loopback fake chat-completions endpoint, and the on-write queue of a real
 * server written to through the real CLI. The fake records every request,
 * so "nothing was sent" is read from it, never inferred.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openServingStore } from "../src/app.js";
import { EXIT } from "../src/argerror/index.js";
import { NO_SUMMARY_MODEL } from "../src/operator-cli/index.js";
import { ANONYMOUS } from "../src/model/subject.js";
import type { MemoryRecord } from "../src/model/record.js";
import type { SummarizeReport } from "../src/operator/summarize-missing.js";
import type { Store } from "../src/store/store.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { fakeSummary, startFakeChat, type FakeChat } from "./helpers/fake-chat-server.js";
import { runEngram } from "./helpers/run-engram.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { openTestStore } from "./helpers/test-store.js";

/** The local embedder's dimension, which the operator verbs open the store with. */
const DIM = 512;
const MODEL = "fake-summary-model";

let chat: FakeChat;
const dirs: string[] = [];

beforeAll(async () => {
  chat = await startFakeChat();
});

afterAll(async () => {
  await chat?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function vector(): Float32Array {
  const v = new Float32Array(DIM);
  v[0] = 1;
  return v;
}

/** A store of its own with `records` in it, closed again; the env a child needs to open it. */
async function seededStore(records: MemoryRecord[]): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-summaries-"));
  dirs.push(dataDir);
  const { store, env } = await openTestStore({ dataDir, dim: DIM });
  await store.importBatch(records.map((record) => ({ record, vector: vector(), version: null })));
  await store.close();
  return env;
}

async function withStore<T>(env: Record<string, string>, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openServingStore(env, DIM);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function recordsOf(env: Record<string, string>): Promise<Map<string, MemoryRecord>> {
  return withStore(env, async (s) => {
    const { records } = await s.list({ subject: ANONYMOUS, allOwners: true, gate: null, now: Math.floor(Date.now() / 1000) }, { order: "asc", limit: 1000 });
    return new Map(records.map((r) => [r.id, r]));
  });
}

const chatEnv = (extra: Record<string, string> = {}) => ({
  ENGRAM_OPENAI_CHAT_BASE_URL: chat.url,
  ENGRAM_OPENAI_CHAT_API_KEY: "chat-key",
  ENGRAM_SUMMARY_MODEL: MODEL,
  ...extra,
});

describe("engram summarize-missing", { timeout: 120_000 }, () => {
  const nowS = Math.floor(Date.now() / 1000);
  // A scheduled record is summarized as the on-write queue would; a lapsed one is never recalled again, so its content stays here.
  const plain = [
    syntheticRecord(1, { scope: "repo:a" }),
    syntheticRecord(2, { scope: "repo:a" }),
    syntheticRecord(3, { scope: "repo:b", owner: "bob" }),
    syntheticRecord(8, { scope: "repo:b", not_before: nowS + 86_400 }),
  ];
  const untouched = [
    syntheticRecord(4, { scope: "repo:a", summary: "the client's own", summary_source: "client" }),
    syntheticRecord(5, { scope: "rule:repo:a", category: "rule", summary: "" }),
    syntheticRecord(6, { scope: "discovery:repo:a", category: "", kind: "fact" }),
    syntheticRecord(7, { scope: "repo:a", archived_at: new Date(1_700_000_100_000).toISOString() }),
    syntheticRecord(9, { scope: "repo:b", not_after: nowS - 60 }),
  ];

  it("without ENGRAM_SUMMARY_MODEL it exits 2 with the line that says what to set, and the summarizer receives nothing", async () => {
    const env = await seededStore([...plain]);
    const before = chat.requests.length;

    const run = await runEngram(["summarize-missing", "--all-scopes", "--output", "json"], { ...env, ENGRAM_OPENAI_CHAT_BASE_URL: chat.url });

    expect(run).toEqual({ code: EXIT.usage, stdout: "", stderr: `engram: ${NO_SUMMARY_MODEL}\n` });
    expect(chat.requests.length).toBe(before);
    expect([...(await recordsOf(env)).values()].map((r) => r.summary)).toEqual(plain.map(() => ""));
  });

  it("a dry run lists the unsummarized live and scheduled records and sends nothing; runs with --limit and then without summarize each once; rules, discoveries, archived and lapsed records and client summaries stay as they were", async () => {
    const env = { ...(await seededStore([...plain, ...untouched])), ...chatEnv() };
    const before = chat.requests.length;

    const dry = await runEngram(["summarize-missing", "--all-scopes", "--dry-run", "--output", "json"], env);
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    const preview = JSON.parse(dry.stdout) as SummarizeReport;
    expect(preview).toMatchObject({ dry_run: true, model: MODEL, scanned: 8, missing: 4, summarized: 0, failed: 0, limited: false });
    expect(preview.records.map((r) => [r.id, r.outcome])).toEqual(plain.map((r) => [r.id, "would_summarize"]));
    expect(chat.requests.length).toBe(before);

    const first = await runEngram(["summarize-missing", "--scope", "repo:a", "--limit", "1", "--output", "json"], env);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(first.stdout)).toMatchObject({ dry_run: false, missing: 1, summarized: 1, limited: true, records: [{ id: plain[0]!.id, outcome: "summarized" }] });

    const rest = await runEngram(["summarize-missing", "--all-scopes", "--output", "json"], env);
    expect(JSON.parse(rest.stdout)).toMatchObject({ missing: 3, summarized: 3, failed: 0, skipped: 0 });

    // Each record once; the workers send side by side, so the order they reach the summarizer in is not fixed.
    const sent = chat.requests.slice(before);
    expect(sent.map((r) => r.content).sort()).toEqual(plain.map((r) => r.content).sort());
    expect(new Set(sent.map((r) => `${r.path} ${r.model} ${r.authorization} ${r.maxTokens}`))).toEqual(new Set([`/v1/chat/completions ${MODEL} Bearer chat-key 1024`]));
    const after = await recordsOf(env);
    for (const r of plain) {
      expect(after.get(r.id)).toMatchObject({ summary: fakeSummary(r.content), summary_source: "auto", summary_model: MODEL, owner: r.owner, content: r.content });
      expect(Date.parse(after.get(r.id)!.summary_egress_at!)).toBeGreaterThan(0);
    }
    for (const r of untouched) expect(after.get(r.id)).toMatchObject({ summary: r.summary, summary_source: r.summary_source, summary_model: "" });

    const again = await runEngram(["summarize-missing", "--all-scopes", "--output", "json"], env);
    expect(JSON.parse(again.stdout)).toEqual({ dry_run: false, model: MODEL, scanned: 8, missing: 0, summarized: 0, skipped: 0, failed: 0, limited: false, records: [] });
    expect(chat.requests.length).toBe(before + 4);
  });

  it("a --timeout that runs out before the last record exits 6 with the report on stdout, and says how many summaries stay written without repeating the value", async () => {
    const records = Array.from({ length: 20 }, (_, i) => syntheticRecord(40 + i, { scope: "repo:t" }));
    const env = { ...(await seededStore(records)), ...chatEnv() };

    const run = await runEngram(["summarize-missing", "--scope", "repo:t", "--timeout", "1ns", "--output", "json"], env);

    expect(run.code).toBe(EXIT.timeout);
    const report = JSON.parse(run.stdout) as SummarizeReport;
    expect(report.missing).toBe(20);
    expect(report.summarized).toBeLessThan(20);
    expect(run.stderr).toBe(`engram: --timeout ran out after ${report.summarized} summary(ies); they stay written; run \`engram summarize-missing\` again to continue\n`);
  });

  it("when every summary fails it exits 5 with the report on stdout, naming the endpoint and status but never the content or the provider's words", async () => {
    const env = { ...(await seededStore([syntheticRecord(11, { scope: "repo:f" })])), ...chatEnv() };
    chat.mode = "fail";
    try {
      const run = await runEngram(["summarize-missing", "--scope", "repo:f", "--output", "json"], env);
      expect(run.code).toBe(EXIT.unavailable);
      const report = JSON.parse(run.stdout) as SummarizeReport;
      expect(report).toMatchObject({ missing: 1, summarized: 0, failed: 1 });
      const why = `openai-compatible summarizer: POST ${chat.url}/v1/chat/completions failed with HTTP 500 (server_error)`;
      expect(report.records[0]!.error).toBe(why);
      expect(run.stderr).toBe(`engram: every summary failed (${why}); nothing was written\n`);
      expect(run.stdout + run.stderr).not.toContain("record 11");
    } finally {
      chat.mode = "ok";
    }
    expect((await recordsOf(env)).get(syntheticRecord(11).id)!.summary).toBe("");
  });
});

/** Polls until `fn` answers a value (a summary landing in the background); the caller's assertion decides. */
async function until<T>(fn: () => Promise<T | undefined>): Promise<T | undefined> {
  for (let i = 0; i < 400; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  return undefined;
}

const RECORD = ["--source", "user-said", "--category", "decision", "--output", "json"];

/** A write through the real CLI, for the verbs the queue listens to. */
async function cliWrite(server: TestServer, verb: "store" | "schedule" | "supersede", content: string, extra: string[] = []): Promise<string> {
  const run = await runEngram([verb, "--server", server.url, "--content", content, "--scope", "repo:w", ...extra, ...RECORD]);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
  return (JSON.parse(run.stdout) as { id: string }).id;
}

/** A store over Connect: the same core write as the CLI's, without a process start per record. */
async function store(server: TestServer, content: string): Promise<string> {
  return (await server.client().storeMemory({ content, scope: "repo:w", source: "user-said", category: "decision" })).id;
}

const summarized = (server: TestServer, id: string) => until(async () => ((await server.store.getRaw(id))?.summary_source === "auto" ? server.store.getRaw(id) : undefined));

/** The server's /metrics exposition, a line each. */
async function metricLines(server: TestServer): Promise<string[]> {
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  return (await res.text()).split("\n");
}

describe("auto summaries on write", { timeout: 120_000 }, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: chatEnv({ ENGRAM_SUMMARY_ON_WRITE: "true", ENGRAM_SUMMARY_QUEUE_SIZE: "2", ENGRAM_SUMMARY_WORKERS: "1" }) });
  });

  afterAll(async () => {
    chat.release();
    await server?.close();
  });

  it("store, schedule and supersede are summarized after the write answers; discoveries and rules never reach the summarizer", async () => {
    const before = chat.requests.length;
    await server.core.storeDiscovery(ANONYMOUS, { content: "a discovery", kind: "fact", scope: "discovery:repo:w", citations: [{ kind: "file", ref: "a.ts", locator: "", pin: "", excerpt: "" }] });
    await server.core.storeRule(ANONYMOUS, { content: "a rule", scope: "rule:repo:w", summary: "the rule" });
    const stored = await cliWrite(server, "store", "stored on write");
    const scheduled = await cliWrite(server, "schedule", "scheduled on write", ["--not-after", "2099-01-01T00:00:00Z"]);
    const superseding = await cliWrite(server, "supersede", "superseding on write", ["--supersedes", stored]);

    for (const [id, content] of [
      [stored, "stored on write"],
      [scheduled, "scheduled on write"],
      [superseding, "superseding on write"],
    ] as const) {
      expect(await summarized(server, id)).toMatchObject({ summary: fakeSummary(content), summary_source: "auto", summary_model: MODEL });
    }
    expect(chat.requests.slice(before).map((r) => r.content).sort()).toEqual(["scheduled on write", "stored on write", "superseding on write"]);
    expect(await metricLines(server)).toContain('engram_summary_queue_total{outcome="summarized"} 3');
  });

  it("with the summarizer holding its answers, a full queue drops the newest records with a warning, and every write still succeeds at once", async () => {
    const before = chat.requests.length;
    chat.mode = "hold";
    const first = await store(server, "held 1");
    // The one worker has taken the first record and waits on the summarizer; the queue (2) is empty.
    await chat.received(before + 1);
    const queued = [await store(server, "held 2"), await store(server, "held 3")];
    const dropped = [await store(server, "held 4"), await store(server, "held 5")];
    const warnings = server.log.lines.filter((l) => l.includes("summary queue full"));
    expect(warnings.map((l) => JSON.parse(l) as { id: string }).map((l) => l.id)).toEqual(dropped);

    chat.release();
    for (const id of [first, ...queued]) expect(await summarized(server, id)).toMatchObject({ summary_source: "auto" });
    for (const id of dropped) expect(await server.store.getRaw(id)).toMatchObject({ summary: "", summary_source: "" });
    expect(chat.requests.slice(before).map((r) => r.content)).toEqual(["held 1", "held 2", "held 3"]);
    const metrics = await metricLines(server);
    expect(metrics).toContain('engram_summary_queue_total{outcome="dropped"} 2');
    expect(metrics).toContain("engram_summary_queue_depth 0");
  });

  it("a failing summarizer never fails a write: the record stays unsummarized and the log names the status, not the content", async () => {
    const before = chat.requests.length;
    chat.mode = "fail";
    try {
      const id = await store(server, "secret words the log must not hold");
      await chat.received(before + 1);
      const line = await until(async () => server.log.lines.find((l) => l.includes("auto summary failed") && l.includes(id)));
      expect(line).toContain("failed with HTTP 500 (server_error)");
      expect(line).not.toContain("secret words");
      expect(await server.store.getRaw(id)).toMatchObject({ summary: "", summary_source: "", summary_model: "" });
      expect(await metricLines(server)).toContain('engram_summary_queue_total{outcome="failed"} 1');
    } finally {
      chat.mode = "ok";
    }
  });

  it("an update that changes an auto-summarized record's content clears its summary for the next sweep", async () => {
    const id = await store(server, "to be edited");
    await summarized(server, id);
    const run = await runEngram(["update", id, "--server", server.url, "--content", "edited", "--output", "json"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(await server.store.getRaw(id)).toMatchObject({ content: "edited", summary: "", summary_source: "", summary_model: "" });
  });

  it("a server with no summary model sends nothing, whatever ENGRAM_SUMMARY_ON_WRITE says, and says so at start", async () => {
    const silent = await startTestServer({ env: { ENGRAM_SUMMARY_ON_WRITE: "true", ENGRAM_OPENAI_CHAT_BASE_URL: chat.url } });
    try {
      expect(silent.log.text()).toContain("ENGRAM_SUMMARY_ON_WRITE is set but ENGRAM_SUMMARY_MODEL is not");
      const before = chat.requests.length;
      await store(silent, "never sent anywhere");
      // A write to the summarizing server after it: its request is the only one the fake gets.
      const marker = await store(server, "the marker");
      await summarized(server, marker);
      expect(chat.requests.slice(before).map((r) => r.content)).toEqual(["the marker"]);
    } finally {
      await silent.close();
    }
  });
});
