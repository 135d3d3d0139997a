import { engram } from "../client.js";
import { h } from "../dom.js";
import { rejectionBox, showRejection } from "../rejection.js";
import { readableScopes } from "../scopes.js";

/**
 * spine-review scan has no RPC: it is an operator verb that opens the store
 * directly and reads every owner's records. The console adds no second API,
 * so this page says so and shows what the caller's own view holds: per
 * scope, the readable count (no recall gate), the recall-visible count and
 * the count with every gate lifted; counting reads no record.
 */
const MAX_SCOPES = 50;

export async function spineReviewPage(main: HTMLElement): Promise<void> {
  const errors = rejectionBox();
  main.append(
    h("h1", { tabindex: "-1" }, "Spine review"),
    h(
      "div",
      { class: "notice", id: "no-rpc" },
      h("p", {}, h("strong", {}, "The Connect service has no spine-review RPC."), " A scan reads the whole store, every owner included, so it runs as an operator verb on the store's host:"),
      h("pre", {}, "engram spine-review scan --all-scopes\nengram spine-review scan --scope <scope>"),
      h("p", {}, "The console adds no second API. Below is what your own token can see through the existing calls, which is not the operator's whole-store scan."),
    ),
    errors,
  );
  try {
    const scopes = (await readableScopes()).scopes.slice(0, MAX_SCOPES);
    const rows = await Promise.all(
      scopes.map(async (s) => {
        const [visible, lifted] = await Promise.all([
          engram.countMemories({ scope: s.scope }),
          engram.countMemories({ scope: s.scope, includeArchived: true, includeSuperseded: true, includeScheduled: true }),
        ]);
        return [s.scope, s.count, visible.count, lifted.count - visible.count] as const;
      }),
    );
    main.append(
      h(
        "div",
        { class: "scroll" },
        h(
          "table",
          { id: "spine" },
          h("caption", {}, "Your readable records per scope"),
          h("thead", {}, h("tr", {}, ...["Scope", "Readable", "Recall-visible", "Hidden by the recall gate"].map((c, i) => h("th", { scope: "col", class: i > 0 ? "num" : null }, c)))),
          h(
            "tbody",
            {},
            ...rows.map(([scope, ...counts]) =>
              h("tr", {}, h("td", {}, h("a", { href: `#/records/${encodeURIComponent(scope)}` }, scope)), ...counts.map((c) => h("td", { class: "num" }, String(c)))),
            ),
          ),
        ),
      ),
      h("p", { class: "note" }, "Hidden means archived, superseded, scheduled or expired; the records page shows each kind with its toggle."),
    );
  } catch (err) {
    showRejection(errors, err);
  }
}
