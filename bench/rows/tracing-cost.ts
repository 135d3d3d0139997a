/**
 * What tracing costs a call: GetMemory and SearchMemories on three
 * `engram serve` children over the same records, called in turn so drift on
 * a shared machine hits all alike, each figure the median:
 *
 *  - the build without tracing: the commit before tracing came in, built
 *    from git into a temporary directory (the reference);
 *  - this build with tracing off (no OTEL_* set, so no SDK module loads);
 *  - this build with tracing on, exporting every span over http/protobuf to
 *    a loopback OTLP receiver this bench runs.
 *
 * The embedder is an OpenAI-compatible endpoint served here (fixed vectors),
 * so a search is timed on engram's own work, not on a model.
 *
 *   ENGRAM_BENCH_TRACE_RECORDS  records in each store (default 2000)
 *   ENGRAM_BENCH_TRACE_CALLS    calls per server and RPC (default 400)
 *   ENGRAM_BENCH_TRACE_BASE     the git revision to build as the reference
 *                               (default: the parent of the commit that added src/observe/otel-sdk.ts)
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import { startOtlpReceiver } from "../../test/helpers/otlp-receiver.js";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { spawnServe, type ServeChild } from "../serve-child.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RECORDS = Number(process.env.ENGRAM_BENCH_TRACE_RECORDS ?? 2000);
const CALLS = Number(process.env.ENGRAM_BENCH_TRACE_CALLS ?? 400);
const DIM = 64;
const OFF_GOAL = 1.05;
const ON_GOAL = 1.25;

/** Deterministic unit vectors from the text, so every server stores and searches the same space. */
function vectorOf(text: string): number[] {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  const v = Array.from({ length: DIM }, (_, i) => Math.sin(h + i * 7919));
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

async function embeddingEndpoint(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { input } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input: string[] };
      const body = JSON.stringify({ data: input.map((t, index) => ({ index, embedding: vectorOf(t) })) });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

/** The reference build: `rev` exported from git and built into a temporary directory with this checkout's node_modules. */
function buildReference(): { dir: string; rev: string } {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
  const added = git("log", "--diff-filter=A", "--format=%H", "--", "src/observe/otel-sdk.ts").split("\n").pop()!;
  const rev = process.env.ENGRAM_BENCH_TRACE_BASE ?? git("rev-parse", `${added}^`);
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-untraced-"));
  execFileSync("sh", ["-c", `git archive ${rev} | tar -x -C ${dir}`], { cwd: ROOT });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: dir, stdio: "ignore" });
  return { dir, rev: rev.slice(0, 10) };
}

const WORDS = ["cache", "postgres", "deploy", "retry", "queue", "index", "schema", "token", "budget", "worker", "lease", "shard"];

function content(i: number): string {
  return `${WORDS[i % 12]} ${WORDS[(i * 7) % 12]} note ${i}: ${WORDS[(i * 5) % 12]} decided after ${WORDS[(i * 3) % 12]} review`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

type Side = { name: string; dir: string; serve: ServeChild; client: Client<typeof EngramService>; ids: string[] };

async function side(name: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), `engram-bench-${name}-`));
  const serve = await spawnServe(dir, env, 100, cwd);
  await serve.until("/readyz", 60_000);
  const client = createClient(EngramService, createConnectTransport({ baseUrl: serve.url, httpVersion: "1.1" }));
  const ids: string[] = [];
  for (let at = 0; at < RECORDS; at += 256) {
    const memories = Array.from({ length: Math.min(256, RECORDS - at) }, (_, j) => ({
      content: content(at + j),
      scope: `repo:bench-${(at + j) % 10}`,
      source: "user-said",
      category: "decision",
    }));
    const r = await client.storeMemories({ memories });
    for (const o of r.results) if (o.id) ids.push(o.id);
  }
  return { name, dir, serve, client, ids };
}

export const tracingCost: BenchSection = async () => {
  const embed = await embeddingEndpoint();
  const receiver = await startOtlpReceiver();
  const reference = buildReference();
  const common: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    ENGRAM_OPENAI_BASE_URL: embed.url,
    ENGRAM_EMBED_MODEL: "bench",
    ENGRAM_EMBED_DIM: String(DIM),
  };
  const sides: Side[] = [];
  try {
    sides.push(await side("untraced", reference.dir, common));
    sides.push(await side("off", ROOT, common));
    sides.push(await side("on", ROOT, { ...common, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }));

    const calls = {
      GetMemory: (s: Side, i: number) => s.client.getMemory({ id: s.ids[i % s.ids.length]! }),
      SearchMemories: (s: Side, i: number) => s.client.searchMemories({ query: `${WORDS[i % 12]} ${WORDS[(i * 5) % 12]} review`, scope: `repo:bench-${i % 10}`, k: 8n }),
    };
    const rows: BenchRow[] = [];
    for (const [rpc, call] of Object.entries(calls)) {
      const times: number[][] = sides.map(() => []);
      for (let i = 0; i < CALLS + 50; i++) {
        // Each round starts at another server, so none is always first after a pause.
        for (let k = 0; k < sides.length; k++) {
          const at = (i + k) % sides.length;
          const t0 = performance.now();
          await call(sides[at]!, i);
          if (i >= 50) times[at]!.push(performance.now() - t0);
        }
      }
      const [base, off, on] = times.map(median) as [number, number, number];
      rows.push({
        measure: `Connect ${rpc}, tracing off vs the build without tracing (${reference.rev})`,
        value: `${off.toFixed(3)} ms p50`,
        reference: `${base.toFixed(3)} ms p50`,
        ratio: off / base,
        goal: `<= ${OFF_GOAL}x`,
        met: off / base <= OFF_GOAL,
      });
      rows.push({
        measure: `Connect ${rpc}, tracing on (every span exported over http/protobuf to a loopback receiver) vs the build without tracing`,
        value: `${on.toFixed(3)} ms p50`,
        reference: `${base.toFixed(3)} ms p50`,
        ratio: on / base,
        goal: `<= ${ON_GOAL}x`,
        met: on / base <= ON_GOAL,
      });
    }
    const received = receiver.spans.filter((s) => s.kind === 2).length;
    if (received === 0) throw new Error("tracing on exported no server span: the on side measured nothing");
    return rows;
  } finally {
    for (const s of sides) {
      await s.serve.stop();
      rmSync(s.dir, { recursive: true, force: true });
    }
    await receiver.close();
    embed.server.close();
    rmSync(reference.dir, { recursive: true, force: true });
  }
};
