import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export const DATA_DIR_ENV = "ENGRAM_DATA_DIR";

/**
 * The per-user data directory, so a client that launches engram from `/` or
 * from whichever project it has open reaches the same store: the XDG base
 * directory when it is set to an absolute path (the spec says to ignore a
 * relative one), else ~/.local/share/engram.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "engram");
  return join(env.HOME || homedir(), ".local", "share", "engram");
}

/**
 * The store directory every verb opens, as an absolute path: ENGRAM_DATA_DIR
 * when set (resolved against the working directory), else the per-user
 * default. ":memory:" passes through for tests and throwaway runs.
 */
export function dataDirOf(env: NodeJS.ProcessEnv = process.env): string {
  const set = env[DATA_DIR_ENV];
  // Blank is unset: "   " would otherwise be a directory of that name in the working directory.
  if (!set || set.trim() === "") return defaultDataDir(env);
  return set === ":memory:" ? set : resolve(set);
}
