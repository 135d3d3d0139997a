import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Citation } from "../src/core/index.js";
import { normalizeRemote, scopeRepo, verifyCitation } from "../src/operator/index.js";

function tree(): string {
  const dir = mkdtempSync(join(tmpdir(), "engram-wt-"));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "a.ts"), "line one\nline two\nfunction parse() {\n  return 1;\n}\n");
  execFileSync("git", ["init", "-q"], { cwd: dir });
  execFileSync("git", ["remote", "add", "origin", "git@github.com:acme/widgets.git"], { cwd: dir });
  return dir;
}

const cite = (over: Partial<Citation>): Citation => ({ kind: "file", ref: "src/a.ts", locator: "3-5", pin: "", excerpt: "function parse()", ...over });

describe("spine-review verify tiers", () => {
  const dir = tree();
  const repo = "github.com/acme/widgets";
  const scope = "repo:github.com/acme/widgets";
  const tier = (c: Citation, s = scope) => verifyCitation(c, s, dir, repo);

  it("an excerpt that starts exactly at its locator's line is valid", () => {
    expect(tier(cite({}))).toEqual({ tier: "valid", reason: "excerpt at locator" });
  });

  it("an excerpt found elsewhere in the same file has moved, with its byte offset", () => {
    expect(tier(cite({ locator: "1" }))).toEqual({ tier: "moved", reason: "excerpt found at byte 18" });
  });

  it("a missing file and a vanished excerpt are broken", () => {
    expect(tier(cite({ ref: "src/gone.ts" }))).toEqual({ tier: "broken", reason: "file missing" });
    expect(tier(cite({ excerpt: "function render()" }))).toEqual({ tier: "broken", reason: "excerpt gone" });
  });

  it("what cannot be checked here is unverifiable, never guessed", () => {
    expect(tier(cite({ kind: "url", ref: "https://example.com" })).tier).toBe("unverifiable");
    expect(tier(cite({ excerpt: "" }))).toEqual({ tier: "unverifiable", reason: "no cached excerpt" });
    expect(tier(cite({ ref: "/etc/passwd" }))).toEqual({ tier: "unverifiable", reason: "absolute ref" });
    expect(tier(cite({ ref: "../outside.ts" }))).toEqual({ tier: "unverifiable", reason: "ref resolves outside the working tree" });
    expect(tier(cite({}), "repo:github.com/other/thing")).toEqual({ tier: "unverifiable", reason: "record belongs to another repository" });
    symlinkSync("/etc/hostname", join(dir, "src", "link.ts"));
    expect(tier(cite({ ref: "src/link.ts" }))).toEqual({ tier: "unverifiable", reason: "ref resolves outside the working tree" });
  });

  it("repository identities normalize the usual remote spellings to one form", () => {
    for (const url of ["git@github.com:acme/widgets.git", "https://user:pw@github.com/acme/widgets.git", "ssh://git@github.com/acme/widgets/", "github.com/acme/widgets"]) {
      expect(normalizeRemote(url)).toBe("github.com/acme/widgets");
    }
    expect(scopeRepo("discovery:repo:github.com/acme/widgets")).toBe("github.com/acme/widgets");
    expect(scopeRepo("project:x")).toBeUndefined();
  });
});
