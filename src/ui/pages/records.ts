import { engram } from "../client.js";
import { field, h, replace, text } from "../dom.js";
import { count, filterControls, filterParams, paramValues, readFilters } from "../filters.js";
import { emptyScopeNote } from "../scopes.js";
import { hiddenSummary } from "../format.js";
import { rejectionBox, showRejection, clearRejection } from "../rejection.js";
import { recordTable } from "../selection.js";

const PAGE = 20;

/** One scope's records, newest first, offset-paged, with the filters and recall-gate toggles. */
export async function recordsPage(main: HTMLElement, scope: string, params: URLSearchParams): Promise<void> {
  const errors = rejectionBox();
  const results = h("div", { id: "results", "aria-live": "polite" });
  const outcomes = h("div", { id: "outcomes", "aria-live": "polite" });
  const offset = /^\d+$/.test(params.get("offset") ?? "") ? BigInt(params.get("offset")!) : 0n;
  const form: HTMLFormElement = h(
    "form",
    {
      id: "records-filter",
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        const p = filterParams(form);
        if (text(form, "limit")) p.set("limit", text(form, "limit"));
        go(text(form, "scope"), p);
      },
    },
    field("scope", "Scope", h("input", { type: "text", value: scope, autocomplete: "off" })),
    field("limit", "Per page", h("input", { type: "text", inputmode: "numeric", value: params.get("limit") ?? String(PAGE), autocomplete: "off" })),
    filterControls(paramValues(params)),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Apply")),
  );
  main.append(h("h1", { tabindex: "-1" }, "Records in ", h("code", {}, scope)), form, errors, outcomes, results);

  const load = async () => {
    clearRejection(errors, form);
    const limit = count(form, "limit");
    if (limit === undefined) {
      replace(results, h("p", { class: "note" }, "Per page must be a whole number."));
      return;
    }
    const f = readFilters(form);
    try {
      const r = await engram.listMemories({ scope: text(form, "scope"), limit, offset, ...f });
      const shown = r.memories.length;
      const pager = h(
        "nav",
        { class: "pager", "aria-label": "Pages" },
        offset > 0n ? h("a", { href: link(scope, params, offset - (limit || BigInt(PAGE)) < 0n ? 0n : offset - (limit || BigInt(PAGE))) }, "Previous page") : null,
        offset + BigInt(shown) < r.total ? h("a", { href: link(scope, params, offset + BigInt(shown)) }, "Next page") : null,
      );
      const empty = shown === 0 && offset === 0n ? await emptyScopeNote(text(form, "scope")) : null;
      replace(
        results,
        empty,
        h("p", { class: "count" }, `Showing ${shown === 0 ? 0 : String(offset + 1n)}–${String(offset + BigInt(shown))} of `, h("strong", { id: "total" }, String(r.total)), " records."),
        hiddenSummary(r.recallGateHidden),
        recordTable(r.memories, { reload: () => void load(), outcomes }),
        pager,
      );
    } catch (err) {
      replace(results);
      showRejection(errors, err, form);
    }
  };
  await load();
}

function link(scope: string, params: URLSearchParams, offset: bigint): string {
  const p = new URLSearchParams(params);
  p.set("offset", String(offset));
  return `#/records/${encodeURIComponent(scope)}?${p}`;
}

function go(scope: string, p: URLSearchParams): void {
  const q = p.toString();
  const target = `#/records/${encodeURIComponent(scope)}${q ? `?${q}` : ""}`;
  // Submitting the same view again still reloads it.
  if (location.hash === target) window.dispatchEvent(new HashChangeEvent("hashchange"));
  else location.hash = target;
}
