import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

const TOO_LARGE =
  "field=response hint=response_too_large: the result is too large to return in one response; retry with a smaller limit or k, or omit full";

describe("bounded responses", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_RESPONSE_BUDGET_BYTES: "3000" } });
    const c = server.client();
    for (let i = 0; i < 6; i++) {
      await c.storeMemory({ content: `record ${i} `.padEnd(600, "z"), scope: "repo:big", source: "user-said", category: "decision" });
    }
  });
  afterAll(async () => server.close());

  it("a list over the byte budget fails as resource_exhausted with the fixed text, never a truncated success", async () => {
    const e = await server
      .client()
      .listMemories({ scope: "repo:big", full: true })
      .then(
        () => undefined,
        (x: unknown) => x,
      );
    expect(e).toBeInstanceOf(ConnectError);
    const ce = e as ConnectError;
    expect(Code[ce.code]).toBe("ResourceExhausted");
    expect(ce.rawMessage).toBe(TOO_LARGE);
    expect(ce.rawMessage).not.toMatch(/\d/);
  });

  it("the same list with a smaller limit fits and returns whole records", async () => {
    const r = await server.client().listMemories({ scope: "repo:big", full: true, limit: 2n });
    expect(r.memories).toHaveLength(2);
    expect(r.memories.every((m) => m.content.length === 600)).toBe(true);
  });

  it("a search over the budget fails the same way", async () => {
    const e = (await server
      .client()
      .searchMemories({ query: "record", scope: "repo:big", full: true })
      .catch((x: unknown) => x)) as ConnectError;
    expect(Code[e.code]).toBe("ResourceExhausted");
    expect(e.rawMessage).toBe(TOO_LARGE);
  });

  it("curl sees HTTP 429 for the same failure", async () => {
    const r = await fetch(`${server.url}/engram.v1.EngramService/ListMemories`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ scope: "repo:big", full: true }),
    });
    expect(r.status).toBe(429);
    expect((await r.json()).message).toBe(TOO_LARGE);
  });
});
