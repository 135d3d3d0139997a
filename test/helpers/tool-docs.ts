import { readFileSync } from "node:fs";

/** The pages of the MCP tool reference: docs/tools.md first, then the two pages of tool sections it links. */
export const TOOL_DOC_PAGES = ["tools.md", "tools-memories.md", "tools-curation.md"] as const;

/** The MCP tool reference as one text, its pages in order. */
export const TOOL_DOCS = TOOL_DOC_PAGES.map((page) => readFileSync(new URL(`../../docs/${page}`, import.meta.url), "utf8")).join("\n");
