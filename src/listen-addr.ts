export const DEFAULT_LISTEN_ADDR = "127.0.0.1:8080";

/** The address serve listens on: the flag, else ENGRAM_LISTEN_ADDR unless blank (blank is unset, as for every setting), else the default. */
export function listenAddrOf(env: NodeJS.ProcessEnv, flag?: string): string {
  const set = env.ENGRAM_LISTEN_ADDR;
  return flag ?? (set !== undefined && set.trim() !== "" ? set : DEFAULT_LISTEN_ADDR);
}
