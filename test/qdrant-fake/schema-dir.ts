import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The workspace keeps Qdrant's schemas next to the repository, never inside it. */
const RELATIVE = join("..", "shared", "reference", "qdrant");

/**
 * A linked git worktree (`.git` is a file naming `<main>/.git/worktrees/<name>`) sits elsewhere
 * than the main checkout, so `../shared` from it misses the workspace folder; look beside the main
 * checkout too. Returns the first candidate that exists, else the conventional one.
 */
export function findSchemaDir(repoRoot: string = process.cwd()): string {
  const candidates = [resolve(repoRoot, RELATIVE)];
  const dotGit = join(repoRoot, ".git");
  if (existsSync(dotGit) && statSync(dotGit).isFile()) {
    const gitdir = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    const marker = `${join(".git", "worktrees")}`;
    if (gitdir && gitdir.includes(marker)) {
      const mainRoot = dirname(gitdir.slice(0, gitdir.indexOf(marker) + ".git".length));
      candidates.push(resolve(mainRoot, RELATIVE));
    }
  }
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}
