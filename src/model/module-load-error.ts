/**
 * A dependency engram needs at run time cannot be loaded: a native file
 * missing or built for another runtime, a package not installed. It names
 * the module and the remedy, never a data file: the user's data is not
 * what is wrong. Every lane prints it as `engram: <message>` and exits 1.
 */
export class ModuleLoadError extends Error {
  override readonly name = "ModuleLoadError";
  constructor(
    readonly module: string,
    reason: string,
    remedy = REINSTALL,
  ) {
    super(`the module ${module} cannot be loaded (${reason}); ${remedy}`);
  }
}

export const REINSTALL = "reinstall engram's dependencies (`npm ci` in a checkout, or install the package again) on a supported Node.js (20, 22.16 or later, 24, 26)";

/** A load failure's short reason: its code, never its message (which holds install paths and, from some loaders, the whole stack). */
export function loadFailureReason(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return code;
  return err instanceof Error ? err.name : "unknown error";
}
