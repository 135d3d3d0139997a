import type { AnyToolHandler } from "../../src/mcp/index.js";

/** A tool that takes no arguments and answers an empty result, through the server's own dispatch. */
export const NOOP_TOOL: Record<string, AnyToolHandler> = {
  bench_noop: { description: "does nothing", input: {}, run: () => Promise.resolve({ text: "", structured: {} }) },
};
