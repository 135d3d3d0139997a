export { accessLog } from "./access-log.js";
export { createMetrics, READY_PARTS } from "./metrics.js";
export type { Metrics, MetricSources } from "./metrics.js";
export { codeLabel } from "./request-outcome.js";
export type { Lane, RequestObserver, RequestOutcome } from "./request-outcome.js";
export { classifyAndLog, errorText } from "./failure-log.js";
