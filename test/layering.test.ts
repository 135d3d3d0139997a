import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("..", import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Every module path a file imports or re-exports, as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!);
}

/** The folders under src/ a file reaches through relative imports. */
function foldersReached(file: string): string[] {
  return importsOf(file)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => relative(join(ROOT, "src"), join(file, "..", spec)).split("/")[0]!);
}

describe("layering", () => {
  it("no file under src/store imports from src/core: storage never calls up into the core", () => {
    const offenders = sourceFiles(join(ROOT, "src/store"))
      .filter((f) => foldersReached(f).includes("core"))
      .map((f) => relative(ROOT, f));
    expect(offenders).toEqual([]);
  });

  it("src/model is a leaf: it imports no other folder of the project", () => {
    const offenders = sourceFiles(join(ROOT, "src/model")).flatMap((f) =>
      foldersReached(f)
        .filter((folder) => folder !== "model")
        .map((folder) => `${relative(ROOT, f)} -> src/${folder}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the check sees a relative import into the core when there is one", () => {
    // Guards the guard: the core itself imports the model and the store.
    const core = sourceFiles(join(ROOT, "src/core")).flatMap(foldersReached);
    expect(core).toContain("model");
    expect(core).toContain("store");
  });
});
