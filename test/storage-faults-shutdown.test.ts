/**
 * SIGTERM on a full disk, end to end: the real `engram serve` binary on an
 * 8 MiB tmpfs, a few records stored through it, the disk filled, SIGTERM.
 * The vector snapshot cannot be written; that is logged and skipped, the
 * process exits 0, and every acknowledged record is in the file afterwards.
 */
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { fillDisk, mountSmallFs, type SmallFs } from "./helpers/small-fs.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const mounted = mountSmallFs(8);
const skip = "skip" in mounted ? mounted.skip : undefined;
if (skip) console.warn(`storage-faults-shutdown: skipped: ${skip}`);
// At file level, so the mount goes away even when a filter selects none of the tests.
afterAll(() => {
  if (!("skip" in mounted)) mounted.unmount();
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

describe.skipIf(skip !== undefined)("engram serve stopped on a full disk", { timeout: 180_000 }, () => {
  const fs = mounted as SmallFs;
  let child: ChildProcess | undefined;

  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  it("exits 0 on SIGTERM, logs the skipped snapshot, and keeps every acknowledged record", async () => {
    const dataDir = join(fs.dir, "data");
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
    const proc = spawn(process.execPath, ["bin/engram.js", "serve"], {
      cwd: ROOT,
      env: { ...env, ENGRAM_DATA_DIR: dataDir, ENGRAM_LISTEN_ADDR: `127.0.0.1:${port}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = proc;
    let stderr = "";
    proc.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.once("exit", (code, signal) => resolve({ code, signal })),
    );
    for (let i = 0; ; i++) {
      if (proc.exitCode !== null) throw new Error(`engram serve exited early: ${stderr}`);
      try {
        if ((await fetch(`${url}/readyz`)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (i > 900) throw new Error(`engram serve did not become ready: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${url}/engram.v1.EngramService/StoreMemory`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: `stored before the disk filled ${i}`, scope: "repo:shutdown", source: "user-said", category: "decision" }),
      });
      expect(r.status).toBe(200);
      ids.push(((await r.json()) as { id: string }).id);
    }
    fillDisk(join(fs.dir, "filler"));
    proc.kill("SIGTERM");
    const { code, signal } = await exited;

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stderr).not.toContain("ENOSPC\n    at");
    const skipped = stderr
      .split("\n")
      .filter((l) => l.includes("vector snapshot not saved"))
      .map((l) => {
        const { level, msg, error } = JSON.parse(l) as { level: string; msg: string; error: string };
        return { level, msg, error };
      });
    // SQLite (stamping the database id) or the snapshot file itself meets the full disk first.
    expect(skipped).toEqual([
      { level: "warn", msg: "vector snapshot not saved at close; the next start catches up from the change log", error: expect.stringMatching(/^(SQLITE_FULL|ENOSPC)$/) },
    ]);

    rmSync(join(fs.dir, "filler"));
    const reopened = EmbeddedStore.open({ dataDir, dim: 384 });
    try {
      for (const id of ids) expect((await reopened.getRaw(id))?.content).toMatch(/^stored before the disk filled \d$/);
    } finally {
      await reopened.close();
    }
  });
});
