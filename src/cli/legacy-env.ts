import { usageError } from "../cli-kit/index.js";
import { shownName } from "./flag-errors.js";

/**
 * The original engram read `MEM_*` variables before it moved to `ENGRAM_*`.
 * One left in an environment is a setting the operator believes is in force
 * and is not, so every verb refuses to run rather than ignore it. The names
 * are repeated (an operator has to find them to unset them); their values,
 * which may be credentials, never are.
 */
export const LEGACY_ENV_PREFIX = "MEM_";

export function legacyEnvNames(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env)
    .filter((k) => k.startsWith(LEGACY_ENV_PREFIX))
    .sort();
}

/**
 * The original's Qdrant address (gRPC host:port). engram reads
 * ENGRAM_QDRANT_URL instead; left in force alone, it would send an operator
 * who moved over to a fresh embedded store without a word.
 */
export const RETIRED_QDRANT_ADDR = "ENGRAM_QDRANT_ADDR";

export function refuseLegacyEnv(env: NodeJS.ProcessEnv = process.env): void {
  const addr = env[RETIRED_QDRANT_ADDR];
  if (addr !== undefined && addr.trim() !== "") {
    throw usageError(`${RETIRED_QDRANT_ADDR} is the original engram's Qdrant setting, which engram does not read; set ENGRAM_QDRANT_URL (http://host:6333, Qdrant's REST port) instead and unset it`);
  }
  const names = legacyEnvNames(env);
  if (names.length === 0) return;
  const shown = names.map(shownName).filter((n): n is string => n !== undefined);
  const unnamed = names.length - shown.length;
  const list = [...shown, ...(unnamed > 0 ? [`${unnamed} more ${LEGACY_ENV_PREFIX}* variable(s)`] : [])].join(", ");
  const text =
    names.length === 1
      ? "is a retired setting that engram no longer reads; set its ENGRAM_* counterpart instead and unset it"
      : "are retired settings that engram no longer reads; set their ENGRAM_* counterparts instead and unset them";
  throw usageError(`${list} ${text}`);
}
