/**
 * An OpenAI-compatible embedder that cannot be reached makes a write answer
 * `unavailable` (not `internal`): Connect code unavailable with a fixed
 * sentence, CLI exit 5, and one warn log line naming the cause class and
 * never the content.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classify, EXIT, UNAVAILABLE_TABLE, UnavailableError, unavailableText } from "../src/argerror/index.js";
import { EmbedderError, OpenAIEmbedder } from "../src/embed/index.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { runEngram } from "./helpers/run-engram.js";

const UNREACHABLE = "unavailable: the embedder cannot be reached; retry shortly";
const SECRET = "secret-roadmap-entry-7731";

/** A loopback port that was just listening and is now closed. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe("the unavailable vocabulary", () => {
  it("gives every reason one fixed sentence behind the unavailable prefix", () => {
    for (const reason of Object.keys(UNAVAILABLE_TABLE) as (keyof typeof UNAVAILABLE_TABLE)[]) {
      expect(unavailableText(reason)).toBe(`unavailable: ${UNAVAILABLE_TABLE[reason].sentence}`);
    }
  });

  it("classifies an unavailable error as Connect unavailable with the fixed text, not internal", () => {
    const c = classify(new UnavailableError("embedder_at_capacity", "queue full"));
    expect(c).toEqual({
      code: Code.Unavailable,
      message: "unavailable: the embedder is at capacity; retry shortly",
      internal: false,
      warn: { reason: "embedder_at_capacity", cause: "queue full" },
    });
  });

  it("classifies an embedder error that declares itself unreachable the same way, hiding its own message", () => {
    const err = new EmbedderError("openai-compatible embedder: POST http://10.0.0.1:9/v1/embeddings could not be reached", {
      reason: "embedder_unreachable",
      cause: "ECONNREFUSED",
    });
    const c = classify(err);
    expect(c.code).toBe(Code.Unavailable);
    expect(c.message).toBe(UNREACHABLE);
    expect(c.internal).toBe(false);
  });

  it("leaves an embedder error without that mark internal", () => {
    expect(classify(new EmbedderError("returned a zero vector")).code).toBe(Code.Internal);
  });

  it("maps the unavailable code to CLI exit 5", () => {
    expect(EXIT.unavailable).toBe(5);
  });
});

describe("a server whose OpenAI-compatible embedder is unreachable", () => {
  let server: TestServer;

  beforeAll(async () => {
    const port = await closedPort();
    server = await startTestServer({
      embedder: new OpenAIEmbedder({ baseUrl: `http://127.0.0.1:${port}`, model: "m", dim: 8, timeoutMs: 10_000 }),
    });
  });
  afterAll(async () => server?.close());

  it("answers StoreMemory on Connect with unavailable and the fixed text", async () => {
    const err = await server
      .client()
      .storeMemory({ content: `${SECRET} over Connect`, scope: "repo:down", source: "user-said", category: "decision" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unavailable);
    expect((err as ConnectError).rawMessage).toBe(UNREACHABLE);
  });

  it("answers store_memory on MCP with an isError result holding the same text", async () => {
    const client = new Client({ name: "embed-unavailable-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const res = await client.callTool({
        name: "store_memory",
        arguments: { content: `${SECRET} over MCP`, scope: "repo:down", source: "user-said", category: "decision" },
      });
      expect(res.isError).toBe(true);
      expect(res.content).toEqual([{ type: "text", text: UNREACHABLE }]);
      expect(res.structuredContent).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it("makes `engram store` exit 5 with the same text", async () => {
    const run = await runEngram([
      "store", "--content", `${SECRET} from the CLI`, "--scope", "repo:down",
      "--source", "user-said", "--category", "decision", "--server", server.url,
    ]);
    expect(run.code).toBe(EXIT.unavailable);
    expect(run.stderr.trim()).toBe(UNREACHABLE);
  });

  it("logs a warn line with the cause class and never the content", () => {
    const lines = server.log.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const warns = lines.filter((l) => l.level === "warn" && l.reason === "embedder_unreachable");
    expect(warns.length).toBe(3);
    for (const w of warns) expect(w).toMatchObject({ msg: expect.stringMatching(/^(request|tool call) unavailable$/), cause: "ECONNREFUSED" });
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(server.log.text()).not.toContain(SECRET);
  });
});
