import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export type ServeProcess = {
  url: string;
  child: ChildProcess;
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
};

/**
 * `node bin/engram.js serve` as a child process, as an operator starts it,
 * on a free loopback port; resolves once /healthz answers and the start's
 * `engram listening` line has arrived. The child sees
 * none of the parent's ENGRAM_* settings, only `env` (and
 * `inherit: true` keeps them, for the one test that shows `npm start`).
 */
export async function startServeProcess(env: Record<string, string>, opts: { inherit?: boolean } = {}): Promise<ServeProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (opts.inherit || (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS")) base[k] = v;
  const child = spawn(process.execPath, ["bin/engram.js", "serve"], {
    cwd: REPO,
    env: { ...base, ...env, ENGRAM_LISTEN_ADDR: `127.0.0.1:${port}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout!.resume();
  const stop = async (): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    return exited;
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`engram serve exited early (${child.exitCode}): ${stderr}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`engram serve did not come up: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // /healthz can answer before the pipe has brought the start's own line; a caller reads that line.
  while (!stderr.includes("engram listening") && child.exitCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, child, stderr: () => stderr, stop };
}
