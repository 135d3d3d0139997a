/**
 * Issue 24, item 10b: `npm run build` used to swap in dist/ from a mkdtemp
 * folder, so dist/ was 0700 and a checkout built by root ran for nobody
 * else, with a message that called the build missing. Here the build script
 * builds a private copy of the shipped layout (bin/, dist/, package.json and
 * the checkout's node_modules), and the bin is run as an unprivileged user
 * when this process can switch to one; otherwise the modes are checked and
 * the unreadable case is made with chmod.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const NOBODY = 65534;

let root = "";
let dist = "";
/** The mode a plain mkdir and a plain file write give under this process's umask. */
let plain = { dir: 0, file: 0 };

/** How to run a command as `nobody`, when this process is root and a tool to switch is installed. */
function asNobody(): string[] | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const [tool, prefix] of [
    ["runuser", ["runuser", "-u", "nobody", "--"]],
    ["setpriv", ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--"]],
  ] as const) {
    if (spawnSync(tool, ["--help"], { stdio: "ignore" }).status === 0) return [...prefix];
  }
  return undefined;
}

const SWITCH = asNobody();

function runBin(): { code: number | null; stdout: string; stderr: string } {
  const argv = [...(SWITCH ?? []), process.execPath, join(root, "bin", "engram.js"), "version"];
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: tmpdir(), encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function walk(dir: string): { path: string; dir: boolean; mode: number }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const st = statSync(path);
    const here = { path, dir: st.isDirectory(), mode: st.mode & 0o777 };
    return st.isDirectory() ? [here, ...walk(path)] : [here];
  });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "engram-build-modes-"));
  // The copy must be reachable by the user the bin runs as.
  chmodSync(root, 0o755);
  mkdirSync(join(root, "probe"));
  writeFileSync(join(root, "probe.txt"), "");
  plain = { dir: statSync(join(root, "probe")).mode & 0o777, file: statSync(join(root, "probe.txt")).mode & 0o777 };
  mkdirSync(join(root, "bin"), { mode: plain.dir });
  copyFileSync(join(REPO, "bin", "engram.js"), join(root, "bin", "engram.js"));
  copyFileSync(join(REPO, "package.json"), join(root, "package.json"));
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"));
  dist = join(root, "dist");
  const build = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", `const { buildDist } = await import(${JSON.stringify(join(REPO, "scripts", "build.mjs"))}); await buildDist(process.argv[1]);`, dist],
    { cwd: REPO, encoding: "utf8" },
  );
  if (build.status !== 0) throw new Error(`the build failed:\n${build.stdout}${build.stderr}`);
}, 120_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("the build leaves dist/ usable by every user", () => {
  it("gives dist/ and everything in it the modes a plain mkdir and write give (0755 and 0644 under umask 022)", () => {
    const entries = [{ path: dist, dir: true, mode: statSync(dist).mode & 0o777 }, ...walk(dist)];
    expect(entries.filter((e) => e.dir).length).toBeGreaterThan(1);
    const odd = entries.filter((e) => e.mode !== (e.dir ? plain.dir : plain.file)).map((e) => `${e.path} ${e.mode.toString(8)}`);
    expect(odd).toEqual([]);
    expect(readdirSync(root).filter((n) => n.startsWith(".dist-next-"))).toEqual([]);
  });

  it(`runs for ${SWITCH ? "the unprivileged user nobody" : "this user"} from a build made by ${process.getuid?.() === 0 ? "root" : "this user"}`, () => {
    expect(runBin()).toEqual({ code: EXIT.ok, stdout: `${VERSION}\n`, stderr: "" });
  });

  // Root reads anything, so it needs a user to switch to; any other user shuts itself out with chmod 000.
  it.skipIf(process.getuid?.() === 0 && !SWITCH)("tells a dist/ this user cannot read from a missing one", () => {
    const mode = statSync(dist).mode & 0o777;
    chmodSync(dist, SWITCH ? 0o700 : 0o000);
    try {
      const r = runBin();
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: EXIT.unclassified,
        stdout: "",
        stderr:
          "engram: the compiled CLI in dist/ cannot be read by this user (EACCES); rebuild it with `npm run build`, which leaves it readable by every user, or make it readable (chmod -R a+rX dist)\n",
      });
    } finally {
      chmodSync(dist, mode);
    }
    rmSync(dist, { recursive: true, force: true });
    expect(runBin()).toEqual({ code: EXIT.unclassified, stdout: "", stderr: "engram: the compiled CLI is missing (dist/engram.js); run `npm run build` first\n" });
  });
});
