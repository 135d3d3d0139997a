import { spawn } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EmbedderError,
  embeddingsUrl,
  embeddingText,
  FakeEmbedder,
  identityKey,
  LocalEmbedder,
  loadUniversalSentenceEncoder,
  OpenAIEmbedder,
  sharedLocalEmbedder,
  type SentenceModel,
} from "../src/embed/index.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function norm(v: Float32Array): number {
  return Math.sqrt(dot(v, v));
}

describe("embedder port helpers", () => {
  it("identity keys join provider, model and dimension", () => {
    expect(identityKey({ provider: "local", model: "universal-sentence-encoder-en", dim: 512 })).toBe(
      "local:universal-sentence-encoder-en:512",
    );
    expect(identityKey({ provider: "openai", model: "text-embedding-3-small", dim: 1536 })).toBe(
      "openai:text-embedding-3-small:1536",
    );
  });

  it("embedding text is the content alone when there are no tags", () => {
    expect(embeddingText("use pnpm, not npm", [])).toBe("use pnpm, not npm");
  });

  it("embedding text appends the tags after a blank line", () => {
    expect(embeddingText("use pnpm", ["tooling", "js"])).toBe("use pnpm\n\ntags: tooling, js");
  });
});

describe("the local embedder", () => {
  const embedder = sharedLocalEmbedder();

  it("ranks the account-recovery note closest to a password-reset question", async () => {
    const stored = [
      "Database migration: add a NOT NULL column with a default, backfill, then drop the default",
      "forgot login credentials, recover account access",
      "Cooking note: simmer the tomato sauce for forty minutes and season with basil",
    ];
    const docs = await embedder.embedDocuments(stored);
    const query = await embedder.embedQuery("how do I reset my password");
    const scores = docs.map((d) => dot(d, query));
    const best = scores.indexOf(Math.max(...scores));
    expect(stored[best]).toBe("forgot login credentials, recover account access");
  });

  it("returns 512-dimensional unit-length Float32Array vectors", async () => {
    const vecs = await embedder.embedDocuments(["a short note", "another, rather longer note about build caches"]);
    const query = await embedder.embedQuery("build cache");
    for (const v of [...vecs, query]) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(512);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(embedder.identity).toEqual({ provider: "local", model: "universal-sentence-encoder-en", dim: 512 });
  });

  it("keeps one vector per input, in order, even for an empty string", async () => {
    const texts = ["alpha release notes", "", "kubernetes pod eviction"];
    const together = await embedder.embedDocuments(texts);
    expect(together).toHaveLength(3);
    const alone = await embedder.embedQuery("kubernetes pod eviction");
    expect(dot(together[2]!, alone)).toBeCloseTo(1, 4);
  });

  it("embeds batches larger than one chunk without losing or reordering texts", async () => {
    const small = new LocalEmbedder({ batchSize: 2, load: () => sharedModel() });
    const texts = ["one apple", "two bananas", "three cherries", "four dates", "five elderberries"];
    const chunked = await small.embedDocuments(texts);
    const whole = await embedder.embedDocuments(texts);
    expect(chunked).toHaveLength(5);
    chunked.forEach((v, i) => expect(dot(v, whole[i]!)).toBeCloseTo(1, 4));
  });

  it("gives each model call texts of like length, and the vectors back in input order", async () => {
    const calls: string[][] = [];
    const recording = new LocalEmbedder({
      batchSize: 2,
      load: async () => ({
        async embed(input: string[]) {
          calls.push(input);
          // Each text's vector names its length, so a misplaced one shows.
          return input.map((t) => Array.from({ length: 512 }, (_, i) => (i === 0 ? t.length : 1)));
        },
      }),
    });
    const texts = ["a much longer text than the others here", "ab", "another rather long text of its own", "abc"];
    const vecs = await recording.embedDocuments(texts);
    expect(calls).toEqual([["ab", "abc"], ["another rather long text of its own", "a much longer text than the others here"]]);
    vecs.forEach((v, i) => expect(v[0]! / v[1]!).toBeCloseTo(texts[i]!.length, 3));
  });

  it("puts short words many to a model call, and never in a call with a text over twice as long", async () => {
    const calls: string[][] = [];
    const recording = new LocalEmbedder({
      load: async () => ({
        async embed(input: string[]) {
          calls.push(input);
          return input.map((t) => Array.from({ length: 512 }, (_, i) => (i === 0 ? t.length : 1)));
        },
      }),
    });
    const words = Array.from({ length: 40 }, (_, i) => `word${String(i).padStart(2, "0")}`);
    const record = "a record of one sentence, long enough to be padded to if words shared its call";
    const vecs = await recording.embedDocuments([record, ...words]);
    // 40 six-letter words: 42 fit the 256-character budget, so one call; the record alone in another.
    expect(calls).toEqual([words, [record]]);
    vecs.forEach((v, i) => expect(v[0]! / v[1]!).toBeCloseTo([record, ...words][i]!.length, 3));
  });

  it("returns an empty list for no texts", async () => {
    expect(await embedder.embedDocuments([])).toEqual([]);
  });

  it("loads the model once when the first calls arrive concurrently", async () => {
    let loads = 0;
    const fresh = new LocalEmbedder({
      load: () => {
        loads++;
        return loadUniversalSentenceEncoder();
      },
    });
    const results = await Promise.all([
      fresh.embedQuery("first"),
      fresh.embedQuery("second"),
      fresh.embedDocuments(["third", "fourth"]),
    ]);
    expect(loads).toBe(1);
    expect(results).toHaveLength(3);
    await fresh.embedQuery("later");
    expect(loads).toBe(1);
  });

  it("retries the load after a failed one", async () => {
    let loads = 0;
    const flaky = new LocalEmbedder({
      load: async (): Promise<SentenceModel> => {
        loads++;
        if (loads === 1) throw new Error("disk hiccup");
        return { embed: async (input) => input.map(() => Array.from({ length: 512 }, () => 1)) };
      },
    });
    await expect(flaky.embedQuery("x")).rejects.toThrow("disk hiccup");
    const v = await flaky.embedQuery("x");
    expect(norm(v)).toBeCloseTo(1, 5);
    expect(loads).toBe(2);
  });

  it("writes nothing to stdout while loading and embedding", async () => {
    const script = [
      'const { LocalEmbedder } = await import("./src/embed/index.ts");',
      "const e = new LocalEmbedder();",
      'const v = await e.embedQuery("hello world");',
      "process.stderr.write(`dim=${v.length}\\n`);",
    ].join("\n");
    const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>(
      (resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
          cwd: ROOT,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.on("error", reject);
        child.on("close", (c) => resolve({ stdout: out, stderr: err, code: c }));
      },
    );
    expect(code, stderr).toBe(0);
    expect(stderr).toContain("dim=512");
    expect(stdout).toBe("");
  });
});

/** Lets a second LocalEmbedder reuse the shared instance's loaded model. */
function sharedModel(): Promise<SentenceModel> {
  const shared = sharedLocalEmbedder();
  return Promise.resolve({
    embed: async (input: string[]) =>
      (await shared.embedDocuments(input)).map((v) => Array.from(v)),
  });
}

// --- OpenAI-compatible embedder against a loopback mock -------------------

type Recorded = { method: string; url: string; headers: IncomingHttpHeaders; body: unknown };
type Reply = { status?: number; body: unknown } | "hang";

describe("the OpenAI-compatible embedder", () => {
  let server: Server;
  let origin: string;
  const requests: Recorded[] = [];
  let reply: (req: Recorded) => Reply = () => ({ body: {} });

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = "";
      req.on("data", (c: Buffer) => (raw += c.toString()));
      req.on("end", () => {
        const rec: Recorded = {
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          body: raw ? JSON.parse(raw) : undefined,
        };
        requests.push(rec);
        const r = reply(rec);
        if (r === "hang") return; // never answer; the client must time out
        res.writeHead(r.status ?? 200, { "content-type": "application/json" });
        res.end(JSON.stringify(r.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A well-formed reply: one vector per input, listed in reverse index order. */
  function reversedVectors(dim: number) {
    return (req: Recorded): Reply => {
      const input = (req.body as { input: string[] }).input;
      const data = input.map((_, i) => ({
        object: "embedding",
        index: i,
        embedding: Array.from({ length: dim }, (_, j) => (j === i % dim ? 3 : 0)),
      }));
      return { body: { object: "list", data: data.reverse(), model: "m" } };
    };
  }

  function last(): Recorded {
    return requests[requests.length - 1]!;
  }

  it("posts to {base}/v1/embeddings when the base has no /v1", async () => {
    reply = reversedVectors(4);
    await new OpenAIEmbedder({ baseUrl: origin, model: "m", dim: 4 }).embedQuery("q");
    expect(last().method).toBe("POST");
    expect(last().url).toBe("/v1/embeddings");
  });

  it("does not double /v1 when the base already ends with it", async () => {
    reply = reversedVectors(4);
    await new OpenAIEmbedder({ baseUrl: `${origin}/v1`, model: "m", dim: 4 }).embedQuery("q");
    expect(last().url).toBe("/v1/embeddings");
    await new OpenAIEmbedder({ baseUrl: `${origin}/v1/`, model: "m", dim: 4 }).embedQuery("q");
    expect(last().url).toBe("/v1/embeddings");
  });

  it("keeps a path prefix and query string on the base URL", () => {
    expect(embeddingsUrl("https://gw.example/openai").href).toBe("https://gw.example/openai/v1/embeddings");
    expect(embeddingsUrl("https://gw.example/openai/v1?api-version=2").href).toBe(
      "https://gw.example/openai/v1/embeddings?api-version=2",
    );
    expect(() => embeddingsUrl("ftp://gw.example")).toThrow(/http or https/);
  });

  it("sends the model, the inputs and a bearer token when a key is set", async () => {
    reply = reversedVectors(4);
    await new OpenAIEmbedder({ baseUrl: origin, apiKey: "sk-test-123", model: "embed-small", dim: 4 }).embedDocuments([
      "a",
      "b",
    ]);
    expect(last().headers.authorization).toBe("Bearer sk-test-123");
    expect(last().body).toEqual({ model: "embed-small", input: ["a", "b"] });
  });

  it("sends no authorization header when no key is set", async () => {
    reply = reversedVectors(4);
    await new OpenAIEmbedder({ baseUrl: origin, model: "m", dim: 4 }).embedQuery("q");
    expect(last().headers.authorization).toBeUndefined();
  });

  it("restores input order from the response indices and normalises the vectors", async () => {
    reply = reversedVectors(4);
    const vecs = await new OpenAIEmbedder({ baseUrl: origin, model: "m", dim: 4 }).embedDocuments([
      "zero",
      "one",
      "two",
    ]);
    expect(vecs.map((v) => Array.from(v))).toEqual([
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
    ]);
  });

  it("splits large inputs into several requests and keeps the overall order", async () => {
    reply = reversedVectors(8);
    const before = requests.length;
    const vecs = await new OpenAIEmbedder({ baseUrl: origin, model: "m", dim: 8, batchSize: 2 }).embedDocuments([
      "a",
      "b",
      "c",
      "d",
      "e",
    ]);
    expect(requests.length - before).toBe(3);
    expect(vecs.map((v) => v.indexOf(1))).toEqual([0, 1, 0, 1, 0]);
  });

  it("rejects vectors whose length differs from the configured dimension without echoing key or input", async () => {
    reply = reversedVectors(3);
    const e = new OpenAIEmbedder({ baseUrl: origin, apiKey: "sk-secret-dim", model: "m", dim: 4 });
    const err = await e.embedQuery("my private note about payroll").catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderError);
    const message = (err as Error).message;
    expect(message).toMatch(/3-dimensional.*configured dimension is 4/);
    expect(message).not.toContain("sk-secret-dim");
    expect(message).not.toContain("payroll");
  });

  it("reports an HTTP error with its status but neither the key nor the input the provider echoed", async () => {
    reply = (req) => ({
      status: 400,
      body: {
        error: {
          message: `Invalid input: '${(req.body as { input: string[] }).input[0]}' with key sk-secret-http`,
          type: "invalid_request_error",
        },
      },
    });
    const e = new OpenAIEmbedder({ baseUrl: origin, apiKey: "sk-secret-http", model: "m", dim: 4 });
    const err = await e.embedQuery("confidential roadmap item").catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderError);
    const message = (err as Error).message;
    expect(message).toContain("HTTP 400");
    expect(message).toContain("invalid_request_error");
    expect(message).not.toContain("confidential");
    expect(message).not.toContain("sk-secret-http");
  });

  it("rejects a response with the wrong number of embeddings", async () => {
    reply = () => ({ body: { data: [{ index: 0, embedding: [1, 0, 0, 0] }] } });
    const e = new OpenAIEmbedder({ baseUrl: origin, model: "m", dim: 4 });
    await expect(e.embedDocuments(["a", "b"])).rejects.toThrow(/1 embeddings for 2 inputs/);
  });

  it("reports a provider that does not answer in time as an embedder timeout", async () => {
    reply = () => "hang";
    const e = new OpenAIEmbedder({ baseUrl: origin, apiKey: "sk-secret-slow", model: "m", dim: 4, timeoutMs: 200 });
    const err = await e.embedQuery("slow input text").catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderError);
    expect((err as Error).message).toMatch(/timed out after 200 ms/);
    expect((err as Error).message).not.toContain("slow input text");
  });

  it("reports an unreachable provider without echoing the input", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const e = new OpenAIEmbedder({ baseUrl: `http://127.0.0.1:${port}`, model: "m", dim: 4 });
    const err = await e.embedQuery("unreachable input text").catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderError);
    expect((err as Error).message).toMatch(/could not be reached/);
    expect((err as Error).message).not.toContain("unreachable input text");
  });
});

describe("the fake embedder", () => {
  it("is deterministic, unit-length and ranks word overlap higher", async () => {
    const fake = new FakeEmbedder();
    const [a, b, c] = await fake.embedDocuments(["reset password", "password reset help", "tomato sauce"]);
    const again = await fake.embedQuery("reset password");
    expect(Array.from(again)).toEqual(Array.from(a!));
    expect(a!.length).toBe(64);
    expect(norm(c!)).toBeCloseTo(1, 5);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!));
  });

  it("counts every call and every text embedded", async () => {
    const fake = new FakeEmbedder(16);
    expect(fake.calls).toBe(0);
    await fake.embedDocuments(["x", "y"]);
    await fake.embedQuery("z");
    expect(fake.calls).toBe(2);
    expect(fake.texts).toBe(3);
    expect(fake.identity.dim).toBe(16);
  });

  it("gives a text without words a unit vector too", async () => {
    const v = await new FakeEmbedder().embedQuery("   ");
    expect(norm(v)).toBeCloseTo(1, 5);
  });
});
