/**
 * The chat-completions summarizer and its settings against the loopback
 * fake endpoint: what a request carries, which key goes where, the one-line
 * cut, the timeout under its ceiling and the bounded response read; wrong
 * settings stop the server verbs with exit 2. Every
 * failure names the endpoint and the cause, never the content.
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { fitSummary } from "../src/core/index.js";
import { oneLine, summaryConfigFromEnv, SummarizerError } from "../src/embed/index.js";
import { fakeSummary, startFakeChat, type FakeChat } from "./helpers/fake-chat-server.js";
import { runEngram } from "./helpers/run-engram.js";
import { freePort } from "./helpers/serve-process.js";

let chat: FakeChat;

beforeAll(async () => {
  chat = await startFakeChat();
});

afterAll(async () => {
  await chat?.close();
});

const summarizerOf = (env: Record<string, string>) => summaryConfigFromEnv({ ENGRAM_SUMMARY_MODEL: "m", ...env })!.summarizer;

async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SummarizerError);
  return (err as Error).message;
}

describe("summary settings", () => {
  it("are off without ENGRAM_SUMMARY_MODEL, whatever else is set", () => {
    expect(summaryConfigFromEnv({ ENGRAM_OPENAI_CHAT_BASE_URL: "http://127.0.0.1:1", ENGRAM_SUMMARY_ON_WRITE: "true" })).toBeUndefined();
  });

  it("need a base URL with a model, and name the variables, never the URL", () => {
    expect(() => summaryConfigFromEnv({ ENGRAM_SUMMARY_MODEL: "m" })).toThrow(
      "ENGRAM_SUMMARY_MODEL is set but neither ENGRAM_OPENAI_CHAT_BASE_URL nor ENGRAM_OPENAI_BASE_URL is; set ENGRAM_OPENAI_CHAT_BASE_URL to the base URL of the chat-completions endpoint",
    );
    expect(() => summaryConfigFromEnv({ ENGRAM_SUMMARY_MODEL: "m", ENGRAM_OPENAI_CHAT_BASE_URL: "ftp://user:secret@host" })).toThrow(/^ENGRAM_OPENAI_CHAT_BASE_URL must be an absolute http:\/\/ or https:\/\/ URL$/);
    expect(() => summaryConfigFromEnv({ ENGRAM_SUMMARY_MODEL: "m", ENGRAM_OPENAI_BASE_URL: chat.url, ENGRAM_SUMMARY_ON_WRITE: "yes" })).toThrow("ENGRAM_SUMMARY_ON_WRITE must be true or false");
  });

  it("that are wrong stop engram serve and engram mcp before anything opens, exit 2", async () => {
    const env = { ENGRAM_SUMMARY_MODEL: "m", ENGRAM_DATA_DIR: join(tmpdir(), "engram-summary-config-unused"), ENGRAM_LISTEN_ADDR: "127.0.0.1:0" };
    const runs = await Promise.all([runEngram(["serve"], env), runEngram(["mcp"], { ...env, ENGRAM_OPENAI_CHAT_BASE_URL: chat.url, ENGRAM_SUMMARY_QUEUE_SIZE: "0" })]);
    expect(runs).toEqual([
      { code: EXIT.usage, stdout: "", stderr: "engram: ENGRAM_SUMMARY_MODEL is set but neither ENGRAM_OPENAI_CHAT_BASE_URL nor ENGRAM_OPENAI_BASE_URL is; set ENGRAM_OPENAI_CHAT_BASE_URL to the base URL of the chat-completions endpoint\n" },
      { code: EXIT.usage, stdout: "", stderr: "engram: ENGRAM_SUMMARY_QUEUE_SIZE must be an integer from 1 to 65536\n" },
    ]);
  });

  it("default to two workers, a queue of 256 and no summaries on write", () => {
    expect(summaryConfigFromEnv({ ENGRAM_SUMMARY_MODEL: "m", ENGRAM_OPENAI_BASE_URL: chat.url })).toMatchObject({ onWrite: false, workers: 2, queueSize: 256 });
  });
});

describe("the chat summarizer", () => {
  it("sends the content as the user message with the model and max_tokens, and answers one trimmed line", async () => {
    const before = chat.requests.length;
    const line = await summarizerOf({ ENGRAM_OPENAI_CHAT_BASE_URL: `${chat.url}/v1/`, ENGRAM_SUMMARY_MAX_TOKENS: "0" }).summarize("the content", 280);
    expect(line).toBe(fakeSummary("the content"));
    expect(chat.requests.slice(before)).toEqual([{ path: "/v1/chat/completions", authorization: undefined, model: "m", maxTokens: undefined, content: "the content" }]);
  });

  it("sends the embedder's key only to the embedder's base URL; a chat base URL of its own takes the chat key or none", async () => {
    const before = chat.requests.length;
    await summarizerOf({ ENGRAM_OPENAI_BASE_URL: chat.url, ENGRAM_OPENAI_API_KEY: "embed-key" }).summarize("a", 280);
    await summarizerOf({ ENGRAM_OPENAI_CHAT_BASE_URL: chat.url, ENGRAM_OPENAI_API_KEY: "embed-key" }).summarize("b", 280);
    await summarizerOf({ ENGRAM_OPENAI_CHAT_BASE_URL: chat.url, ENGRAM_OPENAI_API_KEY: "embed-key", ENGRAM_OPENAI_CHAT_API_KEY: "chat-key" }).summarize("c", 280);
    expect(chat.requests.slice(before).map((r) => r.authorization)).toEqual(["Bearer embed-key", undefined, "Bearer chat-key"]);
  });

  it("refuses a timeout set past its ceiling, or a ceiling past the longest timer, instead of lowering it", () => {
    const config = (env: Record<string, string>) => () => summaryConfigFromEnv({ ENGRAM_SUMMARY_MODEL: "m", ENGRAM_OPENAI_CHAT_BASE_URL: "http://127.0.0.1:1", ...env });
    expect(config({ ENGRAM_SUMMARY_TIMEOUT: "20m" })).toThrow(/^ENGRAM_SUMMARY_TIMEOUT must be at most ENGRAM_SUMMARY_MAX_TIMEOUT \(10m unless set\)$/);
    expect(config({ ENGRAM_SUMMARY_MAX_TIMEOUT: "1000h" })).toThrow(/^ENGRAM_SUMMARY_MAX_TIMEOUT must be at most 2147483647ms$/);
    // A ceiling set below the default timeout lowers only the default.
    expect(config({ ENGRAM_SUMMARY_MAX_TIMEOUT: "5s" })).not.toThrow();
  });

  it("times out at the ceiling when the timeout is 0, naming the endpoint", async () => {
    chat.mode = "hold";
    try {
      const why = await failure(summarizerOf({ ENGRAM_OPENAI_CHAT_BASE_URL: chat.url, ENGRAM_SUMMARY_TIMEOUT: "0", ENGRAM_SUMMARY_MAX_TIMEOUT: "300ms" }).summarize("slow", 280));
      expect(why).toBe(`openai-compatible summarizer: POST ${chat.url}/v1/chat/completions timed out after 300 ms`);
    } finally {
      chat.release();
    }
  });

  it("stops reading a response past 256 KiB", async () => {
    chat.mode = "huge";
    try {
      const why = await failure(summarizerOf({ ENGRAM_OPENAI_CHAT_BASE_URL: chat.url }).summarize("big", 280));
      expect(why).toBe(`openai-compatible summarizer: POST ${chat.url}/v1/chat/completions answered with more than 262144 bytes`);
    } finally {
      chat.mode = "ok";
    }
  });

  it("cannot reach a closed port, and says so with the system code only", async () => {
    const port = await freePort();
    const why = await failure(summarizerOf({ ENGRAM_OPENAI_CHAT_BASE_URL: `http://127.0.0.1:${port}` }).summarize("x", 280));
    expect(why).toBe(`openai-compatible summarizer: POST http://127.0.0.1:${port}/v1/chat/completions could not be reached (ECONNREFUSED)`);
  });
});

describe("one-line summaries", () => {
  it("fold whitespace, drop surrounding quotes, and cut a long answer to the character cap with an ellipsis, never inside a character", () => {
    expect(oneLine('  "first\n\n second\tthird"  ', 280)).toBe("first second third");
    const cut = oneLine("é".repeat(10) + "😀".repeat(300), 280);
    expect([...cut]).toHaveLength(280);
    expect(cut.endsWith("😀…")).toBe(true);
  });

  it("fit the stored summary cap in bytes as well", () => {
    const fitted = fitSummary("é".repeat(300), { maxSummaryBytes: 512 });
    expect(Buffer.byteLength(fitted)).toBeLessThanOrEqual(512);
    expect(fitted).toBe("é".repeat(254) + "…");
    expect(fitSummary("short", { maxSummaryBytes: 0 })).toBe("short");
  });
});

describe("docs/operations.md, Summaries", () => {
  it("has a row for every summary setting the code reads, and no other", () => {
    const src = ["src/embed/summary-config.ts", "src/core/limits.ts"].map((f) => readFileSync(new URL(`../${f}`, import.meta.url), "utf8")).join("\n");
    const doc = readFileSync(new URL("../docs/operations.md", import.meta.url), "utf8");
    const names = (text: string, re: RegExp) => [...new Set([...text.matchAll(re)].map((m) => m[1]!))].sort();
    const read = names(src, /"(ENGRAM_(?:SUMMARY|OPENAI_CHAT)_[A-Z_]+)"/g);
    const documented = names(doc, /^\| `(ENGRAM_(?:SUMMARY|OPENAI_CHAT)_[A-Z_]+)` \|/gm);
    expect(documented).toEqual(read);
  });
});
