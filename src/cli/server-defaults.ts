import { DEFAULT_LIMITS, LANE_POLICY } from "../core/limits.js";

/**
 * The defaults the server applies to a count the client verbs send as 0, for
 * their help. The verbs are Connect clients, so these are the core's Connect
 * lane defaults, read from its table: the CLI holds no number of its own.
 */
export const SERVER_DEFAULTS = {
  searchK: LANE_POLICY.connect.searchK,
  discoveryK: LANE_POLICY.connect.discoveryK,
  relatedK: DEFAULT_LIMITS.relatedDefaultK,
  listTagsLimit: DEFAULT_LIMITS.listTagsDefaultLimit,
  /** A cursor-paged list (list --cursor-mode or --page-token, list-scheduled). */
  cursorLimit: LANE_POLICY.connect.listLimitCursor,
  /** An offset-paged list: every record up to the cap. */
  maxRecall: DEFAULT_LIMITS.maxRecall,
} as const;
