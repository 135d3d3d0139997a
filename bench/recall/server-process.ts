import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export type ServerProcess = { url: string; logFile: string; stop(): Promise<void> };

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
    s.on("error", fail);
  });
}

/**
 * The built `engram serve` on a loopback port over a fresh data directory,
 * as an operator would start it; resolves once /readyz says every part
 * (store, index, terms, embedder) is ready. Its log goes to a file.
 */
export async function startServer(env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-recall-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = join(dataDir, "server.log");
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, "bin/engram.js"), "serve"], {
    cwd: ROOT,
    env: { ...process.env, ...env, ENGRAM_DATA_DIR: join(dataDir, "data"), ENGRAM_LISTEN_ADDR: `127.0.0.1:${port}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  let exited = false;
  child.on("exit", () => (exited = true));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(`engram serve exited before it was ready; its log: ${logFile}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`engram serve was not ready within 120 s; its log: ${logFile}`);
    }
    const ready = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    logFile,
    async stop() {
      if (!exited) {
        const gone = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await gone;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
