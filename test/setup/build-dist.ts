import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * The suite spawns `node bin/engram.js …`, which runs the bundle in dist/.
 * Building it here, once per run (a build takes about a second), means a
 * test can never pass or fail on yesterday's JavaScript.
 */
export default function buildDist(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  try {
    execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const out = String((err as { stdout?: Buffer }).stdout ?? "") + String((err as { stderr?: Buffer }).stderr ?? "");
    throw new Error(`npm run build failed, so the CLI under test would be stale:\n${out}`);
  }
}
