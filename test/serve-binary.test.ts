import { mkdtempSync } from "node:fs";
import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServeProcess, type ServeProcess } from "./helpers/serve-process.js";
import { childStoreEnv } from "./helpers/test-store.js";

/**
 * `npm start` runs `engram serve`: this starts the real binary as a child
 * process, exactly as an operator would, and talks to it over loopback.
 */
const SECRET = "sekrit-serve-binary-77";

describe("engram serve as a child process", () => {
  let serve: ServeProcess;
  let url = "";

  beforeAll(async () => {
    serve = await startServeProcess(await childStoreEnv(mkdtempSync(join(tmpdir(), "engram-serve-"))), { inherit: true });
    url = serve.url;
  }, 120_000);

  afterAll(async () => {
    await serve?.stop();
  });

  it("a 700-byte summary over Connect JSON is HTTP 400, out_of_range, the exact envelope, ErrorInfo TOO_LONG", async () => {
    const r = await fetch(`${url}/engram.v1.EngramService/StoreMemory`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: "x", scope: "repo:b", source: "user-said", category: "decision", summary: SECRET.padEnd(700, "s") }),
    });
    expect(r.status).toBe(400);
    const body = await r.json();
    expect(body.code).toBe("out_of_range");
    expect(body.message).toBe("field=summary hint=too_long: summary must be at most 512 bytes (got 700)");
    expect(body.details[0].type).toBe("google.rpc.ErrorInfo");
    expect(body.details[0].debug.reason).toBe("TOO_LONG");
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });

  it("stores and recalls with the local model, and warns loudly that it runs anonymous", async () => {
    const post = (method: string, body: unknown) =>
      fetch(`${url}/engram.v1.EngramService/${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
    const stored = await post("StoreMemory", { content: "Builds run on the self-hosted runner pool", scope: "repo:b", source: "user-said", category: "convention" });
    expect(stored.shortId).toMatch(/^[0-9A-Z]{10}$/);
    const found = await post("SearchMemories", { query: "where do CI jobs execute", scope: "repo:b" });
    expect(found.memories[0].id).toBe(stored.id);
    expect(serve.stderr()).toContain("running ANONYMOUS");
    expect(serve.stderr()).not.toContain(SECRET);
  });

  it("answers a client that accepts gzip with a gzip body (the compression the bundle loads on first use)", async () => {
    // Past the 1 KiB below which a response goes uncompressed.
    const long = "The release checklist lives in docs/release.md and is read before every tag. ".repeat(40);
    const stored = await fetch(`${url}/engram.v1.EngramService/StoreMemory`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: long, scope: "repo:gz", source: "user-said", category: "convention" }),
    });
    expect(stored.status).toBe(200);
    const body = JSON.stringify({ scope: "repo:gz", full: true });
    const raw = await new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
      const req = request(`${url}/engram.v1.EngramService/ListMemories`, { method: "POST", headers: { "content-type": "application/json", "accept-encoding": "gzip" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ encoding: res.headers["content-encoding"], bytes: Buffer.concat(chunks) }));
      });
      req.on("error", reject);
      req.end(body);
    });
    expect(raw.encoding).toBe("gzip");
    const page = JSON.parse(gunzipSync(raw.bytes).toString("utf8")) as { memories: { content: string }[] };
    expect(page.memories.map((m) => m.content)).toEqual([long]);
  });

  it("stops cleanly on SIGTERM, and says so in its log as it begins and when it is done", async () => {
    expect(await serve.stop()).toBe(0);
    const lines = serve
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { msg?: string; signal?: string });
    expect(lines.filter((l) => l.signal !== undefined).map((l) => [l.msg, l.signal])).toEqual([
      ["engram stopping", "SIGTERM"],
      ["engram stopped", "SIGTERM"],
    ]);
  });
});
