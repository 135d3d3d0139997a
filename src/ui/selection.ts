import type { ArchiveResult, Memory } from "../gen/engram/v1/engram_pb.js";
import { engram } from "./client.js";
import { h, replace } from "./dom.js";
import { badges, outcomeName, recordLink, when } from "./format.js";
import { rejectionBox, showRejection, clearRejection } from "./rejection.js";

/** Archive or restore a batch: one outcome per id, in the order sent. */
export async function flip(action: "archive" | "restore", ids: string[]): Promise<ArchiveResult[]> {
  const r = action === "archive" ? await engram.archiveMemory({ ids }) : await engram.restoreMemory({ ids });
  return r.results;
}

export function outcomesTable(action: string, results: ArchiveResult[]): HTMLElement {
  return h(
    "div",
    { class: "outcomes" },
    h("h3", {}, `${action === "archive" ? "Archive" : "Restore"}: ${results.length} outcome${results.length === 1 ? "" : "s"}`),
    h(
      "div",
      { class: "scroll" },
      h(
        "table",
        { class: "stack" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Requested"), h("th", { scope: "col" }, "Id"), h("th", { scope: "col" }, "Outcome"))),
        h(
          "tbody",
          {},
          ...results.map((r) =>
            h(
              "tr",
              {},
              h("td", { "data-label": "Requested" }, h("code", {}, r.requested)),
              h("td", { "data-label": "Id" }, r.id ? h("code", {}, r.id) : "—"),
              h("td", { class: "outcome", "data-label": "Outcome", "data-outcome": outcomeName(r.outcome) }, outcomeName(r.outcome)),
            ),
          ),
        ),
      ),
    ),
  );
}

/**
 * A table of records with a checkbox per row and an archive / restore bar
 * for the selection. `reload` runs after a flip so the page shows what the
 * recall gate now hides.
 */
export function recordTable(memories: Memory[], opts: { reload: () => void; score?: boolean; outcomes: HTMLElement }): HTMLElement {
  const boxes: HTMLInputElement[] = [];
  const errors = rejectionBox();
  const act = async (action: "archive" | "restore") => {
    const ids = boxes.filter((b) => b.checked).map((b) => b.value);
    clearRejection(errors);
    if (ids.length === 0) {
      replace(opts.outcomes, h("p", {}, "Select at least one record first."));
      return;
    }
    try {
      const results = await flip(action, ids);
      replace(opts.outcomes, outcomesTable(action, results));
      opts.reload();
    } catch (err) {
      showRejection(errors, err);
    }
  };
  const rows = memories.map((m) => {
    const box = h("input", { type: "checkbox", value: m.id, "aria-label": `Select ${m.shortId || m.id}` });
    boxes.push(box);
    return h(
      "tr",
      { "data-id": m.id },
      h("td", { class: "select" }, box),
      h("td", { "data-label": "Id" }, recordLink(m)),
      h("td", { class: "summary", "data-label": "Summary" }, m.summary || m.content, m.truncated ? " …" : "", " ", ...badges(m)),
      h("td", { "data-label": "Category" }, m.category),
      h("td", { "data-label": "Tags" }, m.tags.join(", ")),
      h("td", { "data-label": "Created" }, when(m.createdAt)),
      opts.score ? h("td", { "data-label": "Score" }, m.score.toFixed(3)) : null,
    );
  });
  const all = h("input", {
    type: "checkbox",
    "aria-label": "Select every record on this page",
    onchange: (ev: Event) => {
      for (const b of boxes) b.checked = (ev.target as HTMLInputElement).checked;
    },
  });
  return h(
    "div",
    { class: "records" },
    h(
      "div",
      { class: "actions", role: "group", "aria-label": "Selection" },
      h("button", { type: "button", class: "archive-selected", onclick: () => void act("archive") }, "Archive selected"),
      h("button", { type: "button", class: "restore-selected", onclick: () => void act("restore") }, "Restore selected"),
    ),
    errors,
    memories.length === 0
      ? h("p", { class: "empty" }, "No records.")
      : h(
          "div",
          { class: "scroll" },
          h(
            "table",
            { class: "stack" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                h("th", { scope: "col" }, all),
                h("th", { scope: "col" }, "Id"),
                h("th", { scope: "col" }, "Summary"),
                h("th", { scope: "col" }, "Category"),
                h("th", { scope: "col" }, "Tags"),
                h("th", { scope: "col" }, "Created"),
                opts.score ? h("th", { scope: "col" }, "Score") : null,
              ),
            ),
            h("tbody", {}, ...rows),
          ),
        ),
  );
}
