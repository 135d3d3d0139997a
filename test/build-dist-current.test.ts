/**
 * `npm start` builds before it serves. A second start from the same
 * checkout, while a first server runs, must not swap dist/ out from under
 * that server (its workers and lazy chunks load from dist/ long after it
 * started): a build whose inputs have not changed leaves dist/ alone.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "engram-build-current-"));
const dist = join(root, "dist");

function build(force = false): boolean {
  const r = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { buildDist } = await import(${JSON.stringify(join(REPO, "scripts", "build.mjs"))}); console.log(await buildDist(process.argv[1], { force: process.argv[2] === "force" }));`,
      dist,
      force ? "force" : "",
    ],
    { cwd: REPO, encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`the build failed:\n${r.stdout}${r.stderr}`);
  return r.stdout.trim() === "true";
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a build of an unchanged checkout", () => {
  it("writes dist/ the first time, then leaves it and everything a running server loads from it in place", () => {
    expect(build()).toBe(true);
    const entry = statSync(join(dist, "engram.js")).ino;
    // A file only this test put there: a swap would take it away.
    writeFileSync(join(dist, "still-here"), "");
    expect(build()).toBe(false);
    expect(statSync(join(dist, "engram.js")).ino).toBe(entry);
    expect(readFileSync(join(dist, "still-here"), "utf8")).toBe("");
  });

  it("builds anew when asked to, and then dist/ holds only what the build wrote", () => {
    expect(build(true)).toBe(true);
    expect(() => statSync(join(dist, "still-here"))).toThrow();
  });
});
