import { readFileSync } from "node:fs";

/** The pages of the command line's reference: docs/cli.md first, then the two operator pages it links. */
export const CLI_DOC_PAGES = ["cli.md", "cli-operators.md", "cli-lifecycle.md"] as const;

/** The command line's reference as one text, its pages in order. */
export const CLI_DOCS = CLI_DOC_PAGES.map((page) => readFileSync(new URL(`../../docs/${page}`, import.meta.url), "utf8")).join("\n");
