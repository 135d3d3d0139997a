import { spawn } from "node:child_process";
import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "./synthetic-vectors.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));


/** Ways a snapshot file can be damaged; each rewrites the file at `path` in place. */
export const damage = {
  truncateTo(path: string, bytes: number): void {
    truncateSync(path, bytes);
  },
  /** Random bytes of the file's own length. */
  garbage(path: string, seed: number): void {
    const rand = mulberry32(seed);
    const bytes = readFileSync(path);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256);
    writeFileSync(path, bytes);
  },
  /** One byte at `offset` changed (every bit inverted). */
  flipByte(path: string, offset: number): void {
    const bytes = readFileSync(path);
    bytes[offset] = bytes[offset]! ^ 0xff;
    writeFileSync(path, bytes);
  },
  /** The file's content replaced by another file's (another generation's), under this file's name. */
  swapWith(path: string, other: string): void {
    writeFileSync(path, readFileSync(other));
  },
};

export type StartOutcome = {
  /** Listened, reported ready, answered every search and exited 0 on SIGTERM. */
  started: boolean;
  /** Record ids per query, best first. */
  answers: string[][];
  /** The JSON log lines on stderr. */
  lines: Record<string, unknown>[];
  /** How it ended: `exit 0`, `exit 1`, `SIGSEGV`, … */
  end: string;
  stderr: string;
};

/**
 * `engram serve` as a child process on `env`: waits for /readyz 200, asks
 * each query (cross-spine, top `k`) over Connect JSON, then stops it with
 * SIGTERM. A native crash ends the child, never the test runner.
 */
export async function startAndAsk(env: Record<string, string>, queries: readonly string[], k: number): Promise<StartOutcome> {
  const base: NodeJS.ProcessEnv = {};
  for (const [key, v] of Object.entries(process.env)) if (!key.startsWith("ENGRAM_") && key !== "NODE_OPTIONS") base[key] = v;
  const child = spawn(process.execPath, ["bin/engram.js", "serve"], {
    cwd: REPO,
    env: { ...base, ...env, ENGRAM_LISTEN_ADDR: "127.0.0.1:0" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const ended = new Promise<string>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? `exit ${code}`)));
  let end: string | undefined;
  void ended.then((e) => (end = e));
  const outcome = (started: boolean, answers: string[][]): StartOutcome => ({
    started,
    answers,
    lines: stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>),
    end: end ?? "running",
    stderr,
  });

  const deadline = Date.now() + 90_000;
  let url: string | undefined;
  while (end === undefined && Date.now() < deadline) {
    url ??= /"msg":"engram listening","url":"([^"]+)"/.exec(stderr)?.[1];
    if (url !== undefined && (await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const answers: string[][] = [];
  let answered = end === undefined && url !== undefined;
  try {
    for (const query of answered ? queries : []) {
      const r = await fetch(`${url}/engram.v1.EngramService/SearchMemories`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, crossSpine: true, k }),
      });
      if (r.status !== 200) answered = false;
      else answers.push(((await r.json()) as { memories?: { id: string }[] }).memories?.map((m) => m.id) ?? []);
    }
  } catch {
    answered = false;
  } finally {
    if (end === undefined) child.kill("SIGTERM");
    end = await ended;
  }
  return outcome(answered && end === "exit 0", answers);
}
