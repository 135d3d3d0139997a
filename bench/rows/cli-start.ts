/**
 * How fast the shipped `engram` starts: `engram get` against a server that
 * is not there (all start-up, no work) next to `node -e 0`, and `engram mcp`
 * from spawn until its `tools/list` answer. Both run the built bin
 * (bin/engram.js -> the dist/ bundle), rebuilt here first so the figures describe the
 * current source. Runs alternate with their reference, and each figure is
 * the median of its runs.
 *
 *   ENGRAM_BENCH_CLI_RUNS  runs per figure (default 15)
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { BenchRow, BenchSection } from "../bench-row.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "engram.js");
const RUNS = Number(process.env.ENGRAM_BENCH_CLI_RUNS ?? 15);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The child's environment without the caller's engram settings. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
  return { ...env, ...extra };
}

/** Wall milliseconds from spawn to exit. */
function timeExit(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", () => resolve(performance.now() - t0));
  });
}

/** Wall milliseconds from spawning `engram mcp` until its tools/list answer has arrived. */
function timeMcpToolsList(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, "mcp"], { cwd: ROOT, env, stdio: ["pipe", "pipe", "ignore"] });
    const send = (msg: unknown) => child.stdin.write(JSON.stringify(msg) + "\n");
    let buf = "";
    let answered = 0;
    child.on("error", reject);
    child.on("exit", () => (answered === 0 ? reject(new Error("engram mcp exited before answering tools/list")) : undefined));
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const msg = JSON.parse(buf.slice(0, i)) as { id?: number; result?: { tools?: unknown[] } };
        buf = buf.slice(i + 1);
        if (msg.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
        } else if (msg.id === 2) {
          answered = performance.now() - t0;
          if (!Array.isArray(msg.result?.tools) || msg.result.tools.length === 0) reject(new Error("tools/list answered without tools"));
          child.stdin.end();
          child.once("exit", () => resolve(answered));
        }
      }
    });
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "bench", version: "0" } } });
  });
}

/** A loopback port with nothing listening on it: connecting is refused at once. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const ms = (x: number) => `${x.toFixed(1)} ms`;

export const cliStart: BenchSection = async () => {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { cwd: ROOT, stdio: "inherit" });
  const env = cleanEnv();
  const noop = ["-e", "0"];
  const get = [BIN, "get", "0000000000", "--server", `http://127.0.0.1:${await closedPort()}`, "--output", "json"];

  // One warm-up of each, so the first run does not pay for a cold file cache.
  await timeExit(noop, env);
  await timeExit(get, env);
  const getRuns: number[] = [];
  const noopRuns: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    noopRuns.push(await timeExit(noop, env));
    getRuns.push(await timeExit(get, env));
  }
  const getMs = median(getRuns);
  const noopMs = median(noopRuns);

  const dataDir = mkdtempSync(join(tmpdir(), "engram-bench-mcp-"));
  const mcpEnv = cleanEnv({ ENGRAM_DATA_DIR: dataDir });
  const mcpRuns: number[] = [];
  const mcpNoop: number[] = [];
  try {
    await timeMcpToolsList(mcpEnv); // creates the store; later starts open an existing one, as an agent's do
    const n = Math.max(3, Math.ceil(RUNS / 3));
    for (let i = 0; i < n; i++) {
      mcpNoop.push(await timeExit(noop, env));
      mcpRuns.push(await timeMcpToolsList(mcpEnv));
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const mcpMs = median(mcpRuns);

  const rows: BenchRow[] = [
    {
      measure: "`engram get` against an unreachable server vs `node -e 0`",
      value: `${ms(getMs)} median of ${RUNS}`,
      reference: `node -e 0 ${ms(noopMs)} median of ${RUNS}`,
      ratio: getMs / noopMs,
      goal: "<= 2x",
      met: getMs / noopMs <= 2,
    },
    {
      measure: "`engram mcp` (stdio) spawn to `tools/list` answered",
      value: `${ms(mcpMs)} median of ${mcpRuns.length}`,
      reference: `node -e 0 ${ms(median(mcpNoop))} median of ${mcpNoop.length}`,
      goal: "<= 1 s",
      met: mcpMs <= 1000,
    },
  ];
  return rows;
};
