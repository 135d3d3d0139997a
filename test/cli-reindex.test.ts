/**
 * `engram reindex`, end to end: a store written through one OpenAI-compatible
 * embedder is refused by a server configured for another, reindexed by the
 * real binary, and then served and searched on the new one. The embeddings
 * come from a loopback /v1/embeddings server in this file, so the two
 * embedders really differ (name and dimension) and the test can hold a
 * request to kill a run in the middle of its loop.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));

type Run = { code: number | null; stdout: string; stderr: string };

/** Bag-of-words hashing: texts sharing words point the same way, at any dimension. */
function embed(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) {
    let h = 2166136261;
    for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    v[h % dim]! += 1;
  }
  v[0]! += 0.01;
  return v;
}

/** The loopback embeddings endpoint: model name -> dimension. */
class FakeEmbeddings {
  private server!: Server;
  url = "";
  /** Embedding requests answered or held, per model. */
  readonly calls = new Map<string, number>();
  /** When set, the request with this (1-based) number for this model is held until `release()`. */
  hold: { model: string; call: number } | undefined;
  private held: (() => void)[] = [];
  private waiters: { model: string; n: number; resolve: () => void }[] = [];

  constructor(private readonly dims: Record<string, number>) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = "";
    for await (const chunk of req) body += chunk;
    const { model, input } = JSON.parse(body) as { model: string; input: string[] };
    const n = (this.calls.get(model) ?? 0) + 1;
    this.calls.set(model, n);
    for (const w of this.waiters.filter((w) => w.model === model && n >= w.n)) w.resolve();
    if (this.hold && this.hold.model === model && this.hold.call === n) await new Promise<void>((r) => this.held.push(r));
    const dim = this.dims[model]!;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ object: "list", model, data: input.map((t, index) => ({ object: "embedding", index, embedding: embed(t, dim) })) }));
  }

  /** Resolves once `model` has received its n-th request. */
  reached(model: string, n: number): Promise<void> {
    if ((this.calls.get(model) ?? 0) >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ model, n, resolve }));
  }

  release(): void {
    this.hold = undefined;
    for (const r of this.held.splice(0)) r();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
  return { ...env, ...extra };
}

function spawnEngram(args: readonly string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["bin/engram.js", ...args], { cwd: REPO, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
}

function collect(child: ChildProcess): Promise<Run> {
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const runEngram = (args: readonly string[], env: Record<string, string>) => collect(spawnEngram(args, env));

/** `engram serve` on a free loopback port; resolves with its URL once /healthz answers, or with its exit. */
async function startServe(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> } | Run> {
  const child = spawnEngram(["serve"], { ...env, ENGRAM_LISTEN_ADDR: "127.0.0.1:0" });
  const done = collect(child);
  let stderr = "";
  child.stderr!.on("data", (d: string) => (stderr += d));
  const url = await new Promise<string | undefined>((resolve) => {
    child.stderr!.on("data", () => {
      const m = /"msg":"engram listening","url":"([^"]+)"/.exec(stderr);
      if (m) resolve(m[1]);
    });
    void done.then(() => resolve(undefined));
  });
  if (url === undefined) return done;
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  return {
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await done;
    },
  };
}

const ALPHA = { model: "alpha-embed", dim: 24 };
const BETA = { model: "beta-embed", dim: 40 };

function embedderEnv(base: string, e: { model: string; dim: number }, dataDir: string): Record<string, string> {
  return { ENGRAM_DATA_DIR: dataDir, ENGRAM_OPENAI_BASE_URL: base, ENGRAM_EMBED_MODEL: e.model, ENGRAM_EMBED_DIM: String(e.dim) };
}

const key = (e: { model: string; dim: number }) => `openai:${e.model}:${e.dim}`;
const refusal = (stored: string, configured: string) =>
  `engram: the data was written by embedder ${stored} but the server is configured for ${configured}; ` +
  "either restore the original embedder configuration, or run `engram reindex` to re-embed the data with the new one\n";

const inProgressRefusal = (target: string, configured: string) =>
  `engram: the data is part-way through \`engram reindex\` to embedder ${target} (a run is under way, or one stopped before it finished); ` +
  "until one finishes no embedder configuration can serve it, the original one included; " +
  (target === configured
    ? "run `engram reindex --apply` again to finish it\n"
    : `run \`engram reindex --apply\` again with the configuration for ${target} to finish it, or with this one to re-embed the data for ${configured} instead\n`);

/** A loopback URL nothing listens on: a port just freed. */
async function deadUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}`;
}

const CONTENTS = [
  "billing runs on postgres",
  "deploys happen on tuesdays",
  "file names are kebab-case",
  "the cache is redis",
  "logs ship to loki",
];

/** A store written by `engram serve` on ALPHA, through the CLI's own store verb. */
async function seededStore(embeddings: FakeEmbeddings): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-reindex-cli-"));
  const server = await startServe(embedderEnv(embeddings.url, ALPHA, dataDir));
  if (!("url" in server)) throw new Error(`serve on alpha did not start: ${server.stderr}`);
  for (const content of CONTENTS) {
    const r = await runEngram(["store", "--server", server.url, "--content", content, "--scope", "repo:r", "--source", "user-said", "--category", "decision", "--output", "json"], {});
    expect(r.code, r.stderr).toBe(EXIT.ok);
  }
  await server.stop();
  return dataDir;
}

async function searchTop(url: string, query: string): Promise<string | undefined> {
  const r = await runEngram(["search", "--server", url, "--query", query, "--scope", "repo:r", "--k", "1", "--output", "json"], {});
  expect(r.code, r.stderr).toBe(EXIT.ok);
  const doc = JSON.parse(r.stdout) as { memories: { summary: string }[] };
  return doc.memories[0]?.summary;
}

describe("engram reindex between two embedders", { timeout: 180_000 }, () => {
  const embeddings = new FakeEmbeddings({ [ALPHA.model]: ALPHA.dim, [BETA.model]: BETA.dim });

  beforeAll(() => embeddings.start());
  afterAll(() => embeddings.close());

  it("a refused start names engram reindex; the preview writes nothing; --apply re-embeds with progress lines; the server then starts on the new embedder and finds records", async () => {
    const dataDir = await seededStore(embeddings);
    const beta = embedderEnv(embeddings.url, BETA, dataDir);

    const refused = await startServe(beta);
    expect(refused).toMatchObject({ code: EXIT.usage, stderr: expect.stringContaining(refusal(key(ALPHA), key(BETA))) });

    const preview = await runEngram(["reindex", "--output", "json"], beta);
    expect(preview.code, preview.stderr).toBe(EXIT.ok);
    expect(preview.stderr).toBe("");
    expect(JSON.parse(preview.stdout)).toEqual({
      dry_run: true,
      from_identity: key(ALPHA),
      to_identity: key(BETA),
      records: 5,
      pending: 5,
      reembedded: 0,
      already_done: 0,
    });
    expect(embeddings.calls.get(BETA.model) ?? 0).toBe(0);
    expect(await startServe(beta)).toMatchObject({ code: EXIT.usage });

    const applied = await runEngram(["reindex", "--apply", "--batch-size", "2", "--output", "json"], { ...beta, ENGRAM_PROGRESS: "always" });
    expect(applied.code, applied.stderr).toBe(EXIT.ok);
    expect(JSON.parse(applied.stdout)).toMatchObject({ dry_run: false, records: 5, pending: 5, reembedded: 5, already_done: 0 });
    const lines = applied.stderr.trimEnd().split("\n");
    for (const line of lines) expect(line).toMatch(/^engram: reembedded \d\/5 \(\d+\/s\)$/);
    expect(lines[0]).toMatch(/^engram: reembedded 0\/5 /);
    expect(lines.at(-1)).toMatch(/^engram: reembedded 5\/5 /);

    const server = await startServe(beta);
    if (!("url" in server)) throw new Error(`serve on beta did not start: ${server.stderr}`);
    try {
      expect(await searchTop(server.url, "which cache, redis?")).toBe("the cache is redis");
      expect(await searchTop(server.url, "postgres billing")).toBe("billing runs on postgres");
    } finally {
      await server.stop();
    }

    // The data now belongs to the new embedder: the old configuration is the one refused.
    expect(await startServe(embedderEnv(embeddings.url, ALPHA, dataDir))).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringContaining(refusal(key(BETA), key(ALPHA))),
    });
  });

  it("a run killed with SIGKILL mid-loop leaves the store refused by both embedders, and a rerun finishes only what is left", async () => {
    const dataDir = await seededStore(embeddings);
    const beta = embedderEnv(embeddings.url, BETA, dataDir);
    const before = embeddings.calls.get(BETA.model) ?? 0;

    // Batches of one record: the third embedding request is held, so two batches have committed when the kill lands.
    embeddings.hold = { model: BETA.model, call: before + 3 };
    const child = spawnEngram(["reindex", "--apply", "--batch-size", "1", "--output", "json"], beta);
    const killed = collect(child);
    await embeddings.reached(BETA.model, before + 3);
    child.kill("SIGKILL");
    const k = await killed;
    expect(k.code).toBeNull();
    embeddings.release();

    // Refused by both, each told what works: the original configuration is not one of those ways.
    expect(await startServe(beta)).toMatchObject({ code: EXIT.usage, stderr: expect.stringContaining(inProgressRefusal(key(BETA), key(BETA))) });
    expect(await startServe(embedderEnv(embeddings.url, ALPHA, dataDir))).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringContaining(inProgressRefusal(key(BETA), key(ALPHA))),
    });

    const preview = await runEngram(["reindex", "--output", "json"], beta);
    expect(JSON.parse(preview.stdout)).toMatchObject({ dry_run: true, from_identity: key(ALPHA), records: 5, pending: 3, already_done: 2 });

    const rerun = await runEngram(["reindex", "--apply", "--output", "json"], beta);
    expect(rerun.code, rerun.stderr).toBe(EXIT.ok);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ dry_run: false, records: 5, pending: 3, reembedded: 3, already_done: 2 });

    const again = await runEngram(["reindex", "--output", "json"], beta);
    expect(JSON.parse(again.stdout)).toMatchObject({ pending: 0, from_identity: key(BETA) });

    const server = await startServe(beta);
    if (!("url" in server)) throw new Error(`serve on beta did not start after the rerun: ${server.stderr}`);
    try {
      expect(await searchTop(server.url, "where do logs go? loki")).toBe("logs ship to loki");
    } finally {
      await server.stop();
    }
  });

  it("an embedder that cannot be reached stops --apply with exit 5 before anything is written, and the original configuration still serves", async () => {
    const dataDir = await seededStore(embeddings);
    const unreachable = embedderEnv(`${await deadUrl()}/v1`, BETA, dataDir);

    const applied = await runEngram(["reindex", "--apply", "--output", "json"], unreachable);
    expect({ code: applied.code, stdout: applied.stdout }).toEqual({ code: EXIT.unavailable, stdout: "" });
    expect(applied.stderr).toMatch(
      /^engram: openai-compatible embedder: POST http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings could not be reached \(ECONNREFUSED\); nothing was written and the store is as it was\n$/,
    );

    // Nothing changed: the store is still ALPHA's, with nothing re-embedded, and a server on ALPHA starts and finds records.
    const preview = await runEngram(["reindex", "--output", "json"], embedderEnv(embeddings.url, BETA, dataDir));
    expect(JSON.parse(preview.stdout)).toEqual({ dry_run: true, from_identity: key(ALPHA), to_identity: key(BETA), records: 5, pending: 5, reembedded: 0, already_done: 0 });
    const server = await startServe(embedderEnv(embeddings.url, ALPHA, dataDir));
    if (!("url" in server)) throw new Error(`serve on alpha did not start after the failed reindex: ${server.stderr}`);
    try {
      expect(await searchTop(server.url, "which cache, redis?")).toBe("the cache is redis");
    } finally {
      await server.stop();
    }
  });

  it("a --timeout that runs out while a batch is in flight stops after that batch with exit 6, and a rerun finishes the rest", async () => {
    const dataDir = await seededStore(embeddings);
    const beta = embedderEnv(embeddings.url, BETA, dataDir);
    const before = embeddings.calls.get(BETA.model) ?? 0;

    // The first batch is held past the 1ms budget, so the check after it must stop the run.
    embeddings.hold = { model: BETA.model, call: before + 1 };
    const running = runEngram(["reindex", "--apply", "--batch-size", "1", "--timeout", "1ms", "--output", "json"], beta);
    await embeddings.reached(BETA.model, before + 1);
    await new Promise((r) => setTimeout(r, 20));
    embeddings.release();
    const stopped = await running;
    expect(stopped.code).toBe(EXIT.timeout);
    expect(stopped.stdout).toBe("");
    expect(stopped.stderr).toBe(
      "engram: --timeout ran out; the 1 record(s) re-embedded in committed batches stay done; run `engram reindex --apply` again to continue\n",
    );
    expect(embeddings.calls.get(BETA.model)).toBe(before + 1);

    const rerun = await runEngram(["reindex", "--apply", "--output", "json"], beta);
    expect(rerun.code, rerun.stderr).toBe(EXIT.ok);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ records: 5, pending: 4, reembedded: 4, already_done: 1 });
  });
});
