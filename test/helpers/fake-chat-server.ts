import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One chat-completions request as the fake received it. */
export type ChatRequest = {
  path: string;
  authorization: string | undefined;
  model: string;
  maxTokens: number | undefined;
  /** The user message: the record content the summarizer sent. */
  content: string;
};

/**
 * How the fake answers: `ok` with a summary made from the content; `fail`
 * with HTTP 500 and an OpenAI-style error whose free text must never be
 * repeated; `hold` parks every request until release() (a slow summarizer);
 * `huge` streams a 1 MiB body with no length header.
 */
export type ChatMode = "ok" | "fail" | "hold" | "huge";

export type FakeChat = {
  /** The base URL to configure (ENGRAM_OPENAI_CHAT_BASE_URL). */
  url: string;
  requests: ChatRequest[];
  mode: ChatMode;
  /** Answers every parked request (as `ok`) and stops parking. */
  release(): void;
  /** Resolves once `n` requests have arrived in all. */
  received(n: number): Promise<void>;
  close(): Promise<void>;
};

/** The summary the fake writes for `content`, so tests can expect it exactly. */
export function fakeSummary(content: string): string {
  return `summary: ${content.slice(0, 40)}`;
}

/**
 * A loopback OpenAI-compatible `POST /v1/chat/completions` endpoint that
 * records what it is sent. Any other path is a 404.
 */
export async function startFakeChat(): Promise<FakeChat> {
  const requests: ChatRequest[] = [];
  const parked: (() => void)[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const fake = {} as FakeChat;

  const answer = (res: ServerResponse, req: ChatRequest) => {
    if (fake.mode === "fail") {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "server_error", message: `upstream failed on: ${req.content}` } }));
      return;
    }
    if (fake.mode === "huge") {
      res.writeHead(200, { "content-type": "application/json" });
      for (let i = 0; i < 64; i++) res.write(" ".repeat(16 * 1024));
      res.end("{}");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: `  ${fakeSummary(req.content)}\n` }, finish_reason: "stop" }] }));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body) as { model: string; max_tokens?: number; messages: { role: string; content: string }[] };
      const seen: ChatRequest = {
        path: req.url,
        authorization: req.headers.authorization,
        model: parsed.model,
        maxTokens: parsed.max_tokens,
        content: parsed.messages.find((m) => m.role === "user")?.content ?? "",
      };
      requests.push(seen);
      for (const w of waiters.filter((x) => requests.length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      if (fake.mode === "hold") parked.push(() => answer(res, seen));
      else answer(res, seen);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    requests,
    mode: "ok" as ChatMode,
    release() {
      if (fake.mode === "hold") fake.mode = "ok";
      for (const p of parked.splice(0)) p();
    },
    received(n: number) {
      if (requests.length >= n) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      fake.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return fake;
}
