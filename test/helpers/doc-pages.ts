import { readFileSync } from "node:fs";

/**
 * References that span several pages of docs/: the first page of each links
 * the others, and tests read the pages as one text, in this order.
 */
export const CLI_DOC_PAGES = ["cli.md", "cli-operators.md", "cli-lifecycle.md"] as const;
export const TOOL_DOC_PAGES = ["tools.md", "tools-memories.md", "tools-curation.md"] as const;
export const ERROR_DOC_PAGES = ["errors.md", "errors-cases.md"] as const;

/** One page of docs/. */
export function readDoc(page: string): string {
  return readFileSync(new URL(`../../docs/${page}`, import.meta.url), "utf8");
}

/** Pages of docs/ joined in order, as one text. */
export function readDocs(pages: readonly string[]): string {
  return pages.map(readDoc).join("\n");
}

export const CLI_DOCS = readDocs(CLI_DOC_PAGES);
export const TOOL_DOCS = readDocs(TOOL_DOC_PAGES);
export const ERROR_DOCS = readDocs(ERROR_DOC_PAGES);
