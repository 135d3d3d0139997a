import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

export type CliRun = { code: number | null; stdout: string; stderr: string };

/**
 * Runs the real `engram` binary as a child process. The child sees none of
 * the parent's ENGRAM_* settings, only `env`. Async on purpose: a server the
 * test started in this process must keep answering while the child runs.
 */
export function runEngram(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") base[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/engram.js", ...args], {
      cwd: REPO,
      env: { ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
