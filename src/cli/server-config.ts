
/**
 * The settings `serve` and `mcp` read from the environment, checked before
 * anything opens or listens, so a configuration mistake is exit 2 on every
 * verb (as it is on the operator verbs), never an unclassified 1. A bind
 * failure later on stays 1: the configuration was valid, the machine said no.
 */
export async function checkServerConfig(env: NodeJS.ProcessEnv, listenAddr?: string): Promise<void> {
  const [{ limitsFromEnv }, { consoleSignInFromEnv, loadAuthenticator, protectedResourceFromEnv, stdioSubject }, { embedderFromEnv }, { summaryConfigFromEnv }, server] = await Promise.all([
    import("../core/limits.js"),
    import("../auth/index.js"),
    import("../embed/config.js"),
    import("../embed/summary-config.js"),
    listenAddr === undefined ? undefined : import("../server/index.js"),
  ]);
  const app = await import("../app.js");
  try {
    limitsFromEnv(env);
    loadAuthenticator(env);
    protectedResourceFromEnv(env);
    consoleSignInFromEnv(env);
    embedderFromEnv(env);
    summaryConfigFromEnv(env);
    if (server && listenAddr !== undefined) server.parseListenAddr(listenAddr);
    app.checkStoreSettings(env);
    app.checkTracingSettings(env);
    if (listenAddr === undefined) stdioSubject(env);
    if (listenAddr !== undefined) app.checkListenerSettings(env);
  } catch (err) {
    // A dependency that cannot load is not a setting the operator got wrong: its own line, exit 1.
    if (err instanceof Error && err.name === "ModuleLoadError") throw err;
    throw usageError(err instanceof Error ? err.message : String(err));
  }
}import { usageError } from "../cli-kit/index.js";

