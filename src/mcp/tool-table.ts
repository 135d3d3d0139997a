import type { OperationName } from "../core/index.js";

/**
 * The MCP tool surface: every tool name engram advertises, with its
 * behaviour hints. A hint is true only when it holds for every valid call
 * (the conservative reading), and no tool reaches outside engram's own
 * records, so openWorldHint is false for all of them.
 *
 * Every tool listed here has a handler (handlers.ts fails to compile
 * otherwise), so every tool of the table is served.
 */
export const TOOL_TABLE = {
  store_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  store_memories: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  schedule_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  search_memory: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  list_memory: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  list_scheduled: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  get_memory: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  update_memory: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  delete_memory: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  delete_all: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  store_discovery: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  search_discovery: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  set_visibility: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  supersede_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  store_rule: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  list_rules: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  archive_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  restore_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  related_memories: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  list_tags: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
} as const satisfies Record<string, { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean }>;

export type ToolName = keyof typeof TOOL_TABLE;

/** The core operation each tool calls (its handler in handlers.ts, its input shape in shapes.ts). */
export const TOOL_OPERATION = {
  store_memory: "storeMemory",
  store_memories: "storeMemories",
  schedule_memory: "scheduleMemory",
  search_memory: "searchMemories",
  list_memory: "listMemories",
  list_scheduled: "listScheduled",
  get_memory: "getMemory",
  update_memory: "updateMemory",
  delete_memory: "deleteMemory",
  delete_all: "deleteAll",
  store_discovery: "storeDiscovery",
  search_discovery: "searchDiscoveries",
  set_visibility: "setVisibility",
  supersede_memory: "supersedeMemory",
  store_rule: "storeRule",
  list_rules: "listRules",
  archive_memory: "archiveMemory",
  restore_memory: "restoreMemory",
  related_memories: "relatedMemories",
  list_tags: "listTags",
} as const satisfies Record<ToolName, OperationName>;

/**
 * The operations no tool serves: the 20 tools have none for the
 * scope list or the store-wide schema report, which are read through
 * Connect, the CLI and the console.
 */
export const NOT_TOOLS = ["listScopes", "migrateStatus"] as const satisfies readonly OperationName[];

/** A new core operation fails to compile here until it has a tool or is named in NOT_TOOLS. */
type Unserved = Exclude<OperationName, (typeof TOOL_OPERATION)[ToolName] | (typeof NOT_TOOLS)[number]>;
export const EVERY_OPERATION_PLACED: [Unserved] extends [never] ? true : Unserved = true;

/** Declaration order, which is also the order tools are registered and documented. */
export const TOOL_NAMES = Object.keys(TOOL_TABLE) as ToolName[];

export type ToolAnnotationSet = {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
};

/** The annotations a tool advertises: its row, plus the closed-world hint every tool shares. */
export function annotationsOf(name: ToolName): ToolAnnotationSet {
  return { ...TOOL_TABLE[name], openWorldHint: false };
}
