export { engramRoutes } from "./routes.js";
export { engramServiceImpl } from "./service.js";
export { toConnectError } from "./error-mapper.js";
export { requireSubject, subjectContextValues } from "./subject-context.js";
export { toPbMemory } from "./convert.js";
export { connectNodeHandler } from "./node-handler.js";
export type { ConnectHandlerOptions } from "./node-handler.js";
export { DEFAULT_MAX_REQUEST_BYTES, MAX_REQUEST_BYTES_ENV, maxRequestBytesFromEnv } from "./request-limit.js";
