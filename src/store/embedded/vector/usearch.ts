import { createRequire } from "node:module";
import type * as Usearch from "usearch";
import { loadFailureReason, ModuleLoadError } from "../../../model/module-load-error.js";

// usearch's ESM entry recurses forever looking for its build directory on
// Node 20; its CommonJS entry resolves the prebuilt binary correctly.
export const usearch = loadUsearch();

/** A missing or foreign prebuilt binary is named as the module's fault, never the data file's. */
function loadUsearch(): typeof Usearch {
  try {
    return createRequire(import.meta.url)("usearch") as typeof Usearch;
  } catch (err) {
    throw new ModuleLoadError("usearch", loadFailureReason(err));
  }
}

export type Graph = Usearch.Index;
export type Matches = Usearch.Matches;
