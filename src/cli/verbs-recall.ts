import { SERVER_DEFAULTS } from "./server-defaults.js";
import { noteEmptyScope } from "./empty-scope-note.js";
import type { VerbTable } from "./operation-verb.js";
import { COUNT_FILTER_FLAGS, FILTER_FLAGS, RECALL_SCOPE_FLAGS } from "./recall-flags.js";
import { coverageFooter, memoryTable, recordView } from "./text.js";

/** Reads: search, list, count, get. None of them writes (get bumps the access counter server-side). */
export const RECALL_VERBS = {
  search: {
    summary: "recall records by meaning and words",
    description: (rpc) => `Recall records for a query, best first (${rpc}).`,
    flags: {
      query: { doc: "what to recall (required)", placeholder: "text" },
      ...RECALL_SCOPE_FLAGS,
      k: `how many hits to return; 0 means the server default (${SERVER_DEFAULTS.searchK})`,
      ...FILTER_FLAGS,
    },
    text: (res, o) => {
      const body = memoryTable(res.memories, { score: true, now: new Date() });
      return o.crossSpine ? `${body}\n${coverageFooter(res)}` : body;
    },
    after: (settings, req, res) => noteEmptyScope(settings, req.scope, res.memories.length === 0),
  },

  list: {
    summary: "list records, newest first",
    description: (rpc) => `List recall-visible records in one scope or across every readable scope (${rpc}).`,
    flags: {
      ...RECALL_SCOPE_FLAGS,
      limit: `page size; 0 means the server default (the whole maximum of ${SERVER_DEFAULTS.maxRecall} with offset paging, ${SERVER_DEFAULTS.cursorLimit} with cursor paging)`,
      offset: "skip this many records (offset paging)",
      cursorMode: "use cursor paging from the first page",
      pageToken: { doc: "continue from a previous page's next_page_token", placeholder: "token" },
      visibility: "only private or only shared records (absent: both)",
      ...FILTER_FLAGS,
    },
    text: (res, o) => {
      const lines = [memoryTable(res.memories, { score: false, now: new Date() })];
      if (o.crossSpine) lines.push(coverageFooter(res));
      if (res.nextPageToken !== "") lines.push(`next_page_token: ${res.nextPageToken}`);
      return lines.join("\n");
    },
    after: (settings, req, res) => noteEmptyScope(settings, req.scope, res.memories.length === 0 && req.offset === 0n && req.pageToken === ""),
  },

  count: {
    summary: "count the records a list would return",
    description: (rpc) => `Count the recall-visible records a list with the same filters would page through, without reading them (${rpc}).`,
    flags: { ...RECALL_SCOPE_FLAGS, ...COUNT_FILTER_FLAGS },
    text: (res, o) => (o.crossSpine ? `${res.count}\n${coverageFooter(res)}` : `${res.count}`),
    after: (settings, req, res) => noteEmptyScope(settings, req.scope, res.count === 0n),
  },

  get: {
    summary: "fetch one record by id or short id",
    description: (rpc) => `Fetch one full record by UUID or short id (${rpc}); archived and superseded records are returned too.`,
    argument: ["<id>", "UUID or short id"],
    flags: {},
    text: (res) => (res.memory === undefined ? "" : recordView(res.memory, new Date())),
  },
} as const satisfies Partial<VerbTable>;
