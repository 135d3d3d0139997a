import { createRequire } from "node:module";
import type * as Usearch from "usearch";

// usearch's ESM entry recurses forever looking for its build directory on
// Node 20; its CommonJS entry resolves the prebuilt binary correctly.
export const usearch = createRequire(import.meta.url)("usearch") as typeof Usearch;

export type Graph = Usearch.Index;
export type Matches = Usearch.Matches;
