import { field, h, list, replace, text } from "../dom.js";
import { rejectionBox, showRejection, clearRejection } from "../rejection.js";
import { flip, outcomesTable } from "../selection.js";

/** Archive or restore any ids (UUIDs or short ids), one outcome per id. */
export async function archivePage(main: HTMLElement): Promise<void> {
  const errors = rejectionBox();
  const outcomes = h("div", { id: "outcomes", "aria-live": "polite" });
  const act = async (action: "archive" | "restore") => {
    clearRejection(errors, form);
    try {
      replace(outcomes, outcomesTable(action, await flip(action, list(text(form, "ids")))));
    } catch (err) {
      replace(outcomes);
      showRejection(errors, err, form);
    }
  };
  const form: HTMLFormElement = h(
    "form",
    { id: "archive", onsubmit: (ev: Event) => (ev.preventDefault(), void act("archive")) },
    field("ids", "Ids, one per line or comma-separated", h("textarea", { rows: 6, spellcheck: "false" })),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit" }, "Archive"),
      h("button", { type: "button", onclick: () => void act("restore") }, "Restore"),
    ),
  );
  main.append(
    h("h1", { tabindex: "-1" }, "Archive and restore"),
    h("p", {}, "Archived records leave recall but stay readable by id; restore undoes it. Each id gets its own outcome."),
    form,
    errors,
    outcomes,
  );
}
