import { LANE_POLICY } from "../../core/limits.js";
import { engram } from "../client.js";
import { checked, field, h, replace, text, toggle } from "../dom.js";
import { count, filterControls, readFilters } from "../filters.js";
import { emptyScopeNote } from "../scopes.js";
import { hiddenSummary } from "../format.js";
import { rejectionBox, showRejection, clearRejection } from "../rejection.js";
import { recordTable } from "../selection.js";

/** SearchMemories: meaning and words, best first, with the same filters as the list. */
export async function searchPage(main: HTMLElement, params: URLSearchParams): Promise<void> {
  const errors = rejectionBox();
  const results = h("div", { id: "results", "aria-live": "polite" });
  const outcomes = h("div", { id: "outcomes", "aria-live": "polite" });
  const run = async () => {
    clearRejection(errors, form);
    const k = count(form, "k");
    if (k === undefined) {
      replace(results, h("p", { class: "note" }, "Results must be a whole number."));
      return;
    }
    try {
      const r = await engram.searchMemories({
        query: text(form, "query"),
        scope: text(form, "scope"),
        k,
        crossSpine: checked(form, "cross_spine"),
        ...readFilters(form),
      });
      const empty = r.memories.length === 0 && !checked(form, "cross_spine") ? await emptyScopeNote(text(form, "scope")) : null;
      replace(
        results,
        empty,
        h("p", { class: "count" }, `${r.memories.length} hit${r.memories.length === 1 ? "" : "s"}.`),
        r.searchedScopes.length > 0 ? h("p", { class: "note" }, `Searched scopes: ${r.searchedScopes.join(", ")}${r.scopesTruncated ? " (truncated)" : ""}`) : null,
        hiddenSummary(r.recallGateHidden),
        recordTable(r.memories, { reload: () => void run(), score: true, outcomes }),
      );
    } catch (err) {
      replace(results);
      showRejection(errors, err, form);
    }
  };
  const form: HTMLFormElement = h(
    "form",
    {
      id: "search",
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        void run();
      },
    },
    field("query", "Query", h("input", { type: "search", value: params.get("query") ?? "", autocomplete: "off" })),
    field("scope", "Scope", h("input", { type: "text", value: params.get("scope") ?? "", autocomplete: "off" })),
    toggle("cross_spine", "Every readable scope (cross_spine)"),
    field("k", "Results (k)", h("input", { type: "text", inputmode: "numeric", value: "", placeholder: String(LANE_POLICY.connect.searchK), autocomplete: "off" })),
    filterControls(),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Search")),
  );
  main.append(h("h1", { tabindex: "-1" }, "Search"), form, errors, outcomes, results);
  if (text(form, "query") !== "") await run();
}
