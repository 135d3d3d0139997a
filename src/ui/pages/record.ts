import { EdgeType, SupersessionDirection, type Memory, type RelatedMemory } from "../../gen/engram/v1/engram_pb.js";
import { engram } from "../client.js";
import { h, replace } from "../dom.js";
import { badges, recordLink, when } from "../format.js";
import { rejectionBox, showRejection } from "../rejection.js";
import { flip, outcomesTable } from "../selection.js";

/** One record (GetMemory, not recall-gated) with its supersede chain, related records (RelatedMemories) and citations. */
export async function recordPage(main: HTMLElement, id: string): Promise<void> {
  const errors = rejectionBox();
  const body = h("div", { id: "record" });
  const outcomes = h("div", { id: "outcomes", "aria-live": "polite" });
  // Headed by the short id once the record is here; the whole id is in its details.
  const name = h("code", {});
  main.append(h("h1", { tabindex: "-1" }, "Record ", name), errors, outcomes, body);
  const load = async () => {
    try {
      const [got, rel] = await Promise.all([engram.getMemory({ id }), engram.relatedMemories({ id })]);
      const m = got.memory!;
      name.textContent = m.shortId || m.id;
      const act = async (action: "archive" | "restore") => {
        try {
          replace(outcomes, outcomesTable(action, await flip(action, [m.id])));
          await load();
        } catch (err) {
          showRejection(errors, err);
        }
      };
      // The other action would only ever answer already_archived or not_archived.
      const action = m.archivedAt === undefined ? "archive" : "restore";
      replace(
        body,
        h(
          "div",
          { class: "actions" },
          h("button", { type: "button", "data-action": action, onclick: () => void act(action) }, action === "archive" ? "Archive" : "Restore"),
        ),
        details(m),
        h("h2", {}, "Content"),
        h("pre", { class: "content" }, m.content),
        chain(m, rel.related),
        citations(m),
        related(rel.related, rel.truncated),
      );
    } catch (err) {
      showRejection(errors, err);
    }
  };
  await load();
}

function details(m: Memory): HTMLElement {
  const rows: [string, Node | string][] = [
    ["Id", h("code", {}, m.id)],
    ["Short id", h("code", {}, m.shortId)],
    ["Scope", h("a", { href: `#/records/${encodeURIComponent(m.scope)}` }, m.scope)],
    ["Category", m.kind ? `${m.category} (${m.kind})` : m.category],
    ["Source", m.source],
    ["Tags", m.tags.join(", ")],
    ["Visibility", m.visibility || "private"],
    ["Summary", m.summary],
    ["Created", when(m.createdAt)],
    ["Archived", when(m.archivedAt)],
    ["Not before", when(m.notBefore)],
    ["Not after", when(m.notAfter)],
    ["Schema version", String(m.schemaVersion ?? "")],
    ["Actor", m.actor],
    ["Repo", m.repo],
  ];
  return h(
    "div",
    {},
    h("p", {}, ...badges(m)),
    h("dl", { class: "details" }, ...rows.filter(([, v]) => v !== "").flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
  );
}

/** Predecessors (deepest first), this record, then successors, from the supersession edges. */
function chain(m: Memory, rel: RelatedMemory[]): HTMLElement {
  const along = (dir: SupersessionDirection) =>
    rel
      .flatMap((r) =>
        r.edges.flatMap((e) => (e.evidence.case === "supersession" && e.evidence.value.direction === dir ? [{ m: r.memory!, depth: e.evidence.value.depth }] : [])),
      )
      .sort((a, b) => a.depth - b.depth);
  const before = along(SupersessionDirection.PREDECESSOR).reverse();
  const after = along(SupersessionDirection.SUCCESSOR);
  const item = (x: Memory, label: string) => h("li", {}, recordLink(x), ` ${label} `, x.summary);
  return h(
    "section",
    { "aria-labelledby": "chain-h" },
    h("h2", { id: "chain-h" }, "Supersede chain"),
    before.length === 0 && after.length === 0 && m.supersedes.length === 0 && m.supersededBy === undefined
      ? h("p", { class: "empty" }, "Not part of a supersede chain.")
      : h(
          "ol",
          { class: "chain" },
          ...before.map((x) => item(x.m, `(predecessor, depth ${x.depth})`)),
          h("li", { "aria-current": "true" }, h("strong", {}, m.shortId), " this record"),
          ...after.map((x) => item(x.m, `(successor, depth ${x.depth})`)),
        ),
    m.supersedes.length > 0 ? h("p", {}, "Supersedes: ", ...m.supersedes.map((id) => h("a", { href: `#/record/${encodeURIComponent(id)}` }, h("code", {}, id), " "))) : null,
    m.supersededBy !== undefined ? h("p", {}, "Superseded by: ", h("a", { href: `#/record/${encodeURIComponent(m.supersededBy)}` }, h("code", {}, m.supersededBy))) : null,
  );
}

function citations(m: Memory): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "cit-h" },
    h("h2", { id: "cit-h" }, "Citations"),
    m.citations.length === 0
      ? h("p", { class: "empty" }, "No citations.")
      : h(
          "div",
          { class: "scroll" },
          h(
            "table",
            {},
            h("thead", {}, h("tr", {}, ...["Kind", "Ref", "Locator", "Pin", "Excerpt"].map((c) => h("th", { scope: "col" }, c)))),
            h(
              "tbody",
              {},
              ...m.citations.map((c) =>
                h(
                  "tr",
                  {},
                  h("td", {}, c.kind),
                  h("td", {}, h("code", {}, c.ref)),
                  h("td", {}, c.locator),
                  h("td", {}, h("code", {}, c.pin)),
                  h("td", {}, c.excerpt ? h("details", {}, h("summary", {}, "excerpt"), h("pre", {}, c.excerpt)) : ""),
                ),
              ),
            ),
          ),
        ),
  );
}

function edgeText(r: RelatedMemory): string {
  return r.edges
    .map((e) => {
      switch (e.evidence.case) {
        case "vector":
          return `vector ${e.evidence.value.score.toFixed(3)}`;
        case "tag":
          return `tags ${e.evidence.value.sharedTags.map((t) => t.tag).join(", ")}`;
        case "citation":
          return `cites ${e.evidence.value.sharedCitations.map((c) => `${c.kind}:${c.ref}`).join(", ")}`;
        case "supersession":
          return `${e.evidence.value.direction === SupersessionDirection.SUCCESSOR ? "successor" : "predecessor"} depth ${e.evidence.value.depth}`;
        default:
          return (EdgeType[e.type] ?? "").replace(/^EDGE_TYPE_/, "").toLowerCase();
      }
    })
    .join("; ");
}

function related(rel: RelatedMemory[], truncated: boolean): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "rel-h" },
    h("h2", { id: "rel-h" }, "Related records"),
    rel.length === 0
      ? h("p", { class: "empty" }, "No related records.")
      : h("ul", { class: "related" }, ...rel.map((r) => h("li", {}, recordLink(r.memory!), " ", r.memory!.summary, h("span", { class: "edge" }, ` — ${edgeText(r)}`)))),
    truncated ? h("p", { class: "note" }, "The neighbourhood was truncated.") : null,
  );
}
