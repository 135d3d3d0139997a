import type { Citation } from "../model/record.js";

/**
 * Lane-neutral arguments. Every name is the proto / MCP snake_case field
 * name, which is also the name an envelope reports. `undefined` means the
 * caller did not send the field.
 */
export type CitationArg = Partial<Citation>;

export type StoreArgs = {
  content?: string;
  scope?: string;
  source?: string;
  category?: string;
  tags?: string[];
  repo?: string;
  workspace?: string;
  worktree?: string;
  base_dir?: string;
  summary?: string;
  citations?: CitationArg[];
  idempotency_key?: string;
};

export type RecallFilterArgs = {
  scope?: string;
  cross_spine?: boolean;
  tags?: string[];
  categories?: string[];
  full?: boolean;
  created_after?: string;
  created_before?: string;
  include_archived?: boolean;
  include_superseded?: boolean;
  include_scheduled?: boolean;
};

export type SearchArgs = RecallFilterArgs & { query?: string; k?: number };

export type ListArgs = RecallFilterArgs & {
  limit?: number;
  offset?: number;
  visibility?: string;
  page_token?: string;
  cursor_mode?: boolean;
};

export type GetArgs = { id?: string };

export type UpdateArgs = {
  id?: string;
  content?: string;
  shared?: boolean;
  tags?: string[];
  summary?: string;
  /** Connect only: the paths that are present; absent paths are unchanged. */
  update_mask?: string[];
};

export type DeleteArgs = { id?: string };

export type SetVisibilityArgs = { id?: string; shared?: boolean };

export type ScheduleArgs = StoreArgs & { not_before?: string; not_after?: string };

export type ListScheduledArgs = {
  scope?: string;
  cross_spine?: boolean;
  state?: string;
  limit?: number;
  created_after?: string;
  created_before?: string;
  page_token?: string;
};

export type StoreDiscoveryArgs = {
  content?: string;
  kind?: string;
  citations?: CitationArg[];
  scope?: string;
  tags?: string[];
  summary?: string;
  id?: string;
};

export type SearchDiscoveriesArgs = { query?: string; scope?: string; k?: number; kind?: string; cross_spine?: boolean };

export type StoreRuleArgs = { content?: string; scope?: string; summary?: string; tags?: string[]; id?: string };

export type ListRulesArgs = { scopes?: string[]; tags?: string[]; full?: boolean };

export type SupersedeArgs = StoreArgs & { supersedes?: string[]; validate_only?: boolean };

export type BatchArgs = { ids?: string[] };

/**
 * A batch of records to write. Each entry is a record's arguments as the
 * caller sent them (checked one by one); `stop_at_first_error` leaves every
 * record after the first refused one unwritten.
 */
export type StoreBatchArgs = { memories?: Record<string, unknown>[]; stop_at_first_error?: boolean };

export type RelatedArgs = { id?: string; k?: number; full?: boolean };

export type ListTagsArgs = { scope?: string; limit?: number };

/** `dry_run` counts what would go and deletes nothing (Connect and the CLI preview; not an MCP argument). */
export type DeleteAllArgs = { scope?: string; dry_run?: boolean };
