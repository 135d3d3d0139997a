import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childStoreEnv } from "./helpers/test-store.js";

/**
 * `npm start` runs `engram serve`: this starts the real binary as a child
 * process, exactly as an operator would, and talks to it over loopback.
 */
const ROOT = new URL("..", import.meta.url).pathname;
const SECRET = "sekrit-serve-binary-77";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe("engram serve as a child process", () => {
  let child: ChildProcess;
  let url = "";
  let stderr = "";

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ["bin/engram.js", "serve"], {
      cwd: ROOT,
      env: { ...process.env, ...(await childStoreEnv(mkdtempSync(join(tmpdir(), "engram-serve-")))), ENGRAM_LISTEN_ADDR: `127.0.0.1:${port}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`engram serve exited early: ${stderr}`);
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`engram serve did not come up: ${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 120_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
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
    expect(stderr).toContain("running ANONYMOUS");
    expect(stderr).not.toContain(SECRET);
  });

  it("stops cleanly on SIGTERM", async () => {
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
