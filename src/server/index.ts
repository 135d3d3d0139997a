export { startServer } from "./listener.js";
export type { RunningServer, ServerOptions } from "./options.js";
export type { AnyRequest, AnyResponse, Handler } from "../node-http.js";
export {
  ALLOWED_ORIGINS_ENV,
  DEFAULT_LISTEN_ADDR,
  REQUEST_TIMEOUT_ENV,
  REQUEST_TIMEOUT_MS,
  allowedOriginsFromEnv,
  listenAddrOf,
  parseListenAddr,
  requestTimeoutFromEnv,
} from "../listen-config.js";
