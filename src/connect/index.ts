export { engramRoutes } from "./routes.js";
export { engramServiceImpl } from "./service.js";
export { toConnectError } from "./error-mapper.js";
export { subjectContextValues, subjectOf } from "./subject-context.js";
export { toPbMemory } from "./convert.js";
