import { append, h } from "../dom.js";
import { rejectionBox, showRejection } from "../rejection.js";
import { readableScopes } from "../scopes.js";

export async function scopesPage(main: HTMLElement): Promise<void> {
  const errors = rejectionBox();
  main.append(h("h1", { tabindex: "-1" }, "Scopes"), errors);
  try {
    const { scopes, approximate } = await readableScopes();
    append(
      main,
      scopes.length === 0
        ? h("p", { class: "empty" }, "No readable records yet.")
        : h(
            "div",
            { class: "scroll" },
            h(
              "table",
              { id: "scopes" },
              h("caption", {}, "Records you may read, per scope (no recall gate: archived, superseded and windowed records count too)"),
              h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Scope"), h("th", { scope: "col", class: "num" }, "Records"))),
              h(
                "tbody",
                {},
                ...scopes.map((s) =>
                  h("tr", {}, h("td", {}, h("a", { href: `#/records/${encodeURIComponent(s.scope)}` }, s.scope)), h("td", { class: "num" }, String(s.count))),
                ),
              ),
            ),
          ),
      approximate ? h("p", { class: "note" }, "The scan hit its cap: the counts are approximate.") : null,
    );
  } catch (err) {
    showRejection(errors, err);
  }
}
