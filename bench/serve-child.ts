import { spawn, type ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { freePort } from "../test/helpers/serve-process.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export type ServeChild = {
  child: ChildProcess;
  url: string;
  /** What the server wrote to stderr, its last 20,000 characters. */
  stderr: () => string;
  /** Milliseconds from spawn until `path` answers 200; throws when the server exits first or `limitMs` passes. */
  until: (path: string, limitMs: number) => Promise<number>;
  /** SIGTERM, then waits for the exit. */
  stop: () => Promise<void>;
};

/** `node bin/engram.js serve` over `dir` on a free loopback port, timed from its spawn; `root` is the checkout whose build runs (this one by default). */
export async function spawnServe(dir: string, env: NodeJS.ProcessEnv, pollMs: number, root: string = ROOT): Promise<ServeChild> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, ["bin/engram.js", "serve"], {
    cwd: root,
    env: { ...env, ENGRAM_DATA_DIR: dir, ENGRAM_LISTEN_ADDR: `127.0.0.1:${port}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  const until = async (path: string, limitMs: number): Promise<number> => {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`engram serve exited early:\n${stderr}`);
      try {
        if ((await fetch(`${url}${path}`)).status === 200) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      if (performance.now() - t0 > limitMs) throw new Error(`${path} not 200 after ${limitMs} ms:\n${stderr}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  return { child, url, stderr: () => stderr, until, stop };
}
