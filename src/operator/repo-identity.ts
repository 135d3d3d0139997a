import { execFileSync } from "node:child_process";
import { basename } from "node:path";

/**
 * The working tree's repository identity: origin's URL with scheme and
 * credentials stripped, the scp-style first ":" made a "/", ".git" and a
 * trailing "/" trimmed (git@github.com:a/b.git → github.com/a/b). Without an
 * origin, the directory's base name.
 */
export function normalizeRemote(url: string): string {
  let u = url.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  u = u.replace(/^[^@/]*@/, "");
  if (!/^[^/]*\/\//.test(u)) u = u.replace(":", "/");
  return u.replace(/\/+$/, "").replace(/\.git$/, "").replace(/\/+$/, "");
}

export function repoIdentity(workTree: string): string {
  try {
    const url = execFileSync("git", ["remote", "get-url", "origin"], { cwd: workTree, stdio: ["ignore", "pipe", "ignore"] }).toString();
    if (url.trim()) return normalizeRemote(url);
  } catch {
    // no git, no repository, or no origin: fall back to the directory name
  }
  return basename(workTree);
}

/** The `repo:<x>` segment of a scope, if it names one (repo:x, discovery:repo:x, run:tier:repo:x). */
export function scopeRepo(scope: string): string | undefined {
  const m = /(?:^|:)repo:([^:]+)/.exec(scope);
  return m?.[1];
}
