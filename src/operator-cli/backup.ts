import { usageError } from "../cli-kit/index.js";
import type { Command } from "commander";

/**
 * `engram backup <file>` checks its target before the store is opened, as
 * every operator verb checks its flags: a file that exists already, a
 * directory that is missing or does not take a new file is exit 2 at once,
 * never after the store was opened and its integrity checked, and never
 * SQLite's or Node's own words (which are exit 1 and may carry the path).
 * The line names the errno, never the path, which may hold anything.
 *
 * A preAction hook on the registered verb, as the root's legacy-settings
 * check is, so it runs after that check and before the verb's action. With
 * ENGRAM_QDRANT_URL set the action's own refusal (there is no file to copy)
 * comes first, so the hook leaves that case alone.
 */
export function guardBackupTarget(program: Command, env: NodeJS.ProcessEnv = process.env): void {
  const backup = program.commands.find((c) => c.name() === "backup");
  if (backup === undefined) throw new Error("guardBackupTarget: no backup command registered");
  backup.hook("preAction", async (_cmd, action) => {
    if (env.ENGRAM_QDRANT_URL) return;
    // Loaded here, as the verb loads it: other verbs never load the SQLite driver it brings.
    const { backupTargetRefusal } = await import("../operator/backup.js");
    const file = action.processedArgs[0] as string;
    const refused = backupTargetRefusal(file);
    if (refused !== undefined) throw usageError(refused.message);
  });
}
