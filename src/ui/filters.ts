import { checked, field, h, list, text, toggle } from "./dom.js";

/** The filter fields list and search share, named as the request fields they fill. */
export type RecallFilters = {
  tags: string[];
  categories: string[];
  createdAfter: string;
  createdBefore: string;
  includeArchived: boolean;
  includeSuperseded: boolean;
  includeScheduled: boolean;
};

export type FilterValues = Partial<Record<"tags" | "categories" | "created_after" | "created_before", string>> &
  Partial<Record<"include_archived" | "include_superseded" | "include_scheduled", boolean>>;

export function filterControls(v: FilterValues = {}): HTMLElement {
  return h(
    "div",
    { class: "filters" },
    field("tags", "Tags (all of, comma-separated)", h("input", { type: "text", value: v.tags ?? "", autocomplete: "off" })),
    field("categories", "Categories (any of, comma-separated)", h("input", { type: "text", value: v.categories ?? "", autocomplete: "off" }), "decision, preference, convention, gotcha"),
    field("created_after", "Created at or after (RFC 3339)", h("input", { type: "text", value: v.created_after ?? "", placeholder: "2026-01-31T00:00:00Z", autocomplete: "off" })),
    field("created_before", "Created before (RFC 3339)", h("input", { type: "text", value: v.created_before ?? "", placeholder: "2026-12-31T00:00:00Z", autocomplete: "off" })),
    h(
      "fieldset",
      { class: "gate" },
      h("legend", {}, "Recall gate: also show"),
      toggle("include_archived", "archived", v.include_archived),
      toggle("include_superseded", "superseded", v.include_superseded),
      toggle("include_scheduled", "scheduled or expired", v.include_scheduled),
    ),
  );
}

export function readFilters(form: HTMLFormElement): RecallFilters {
  return {
    tags: list(text(form, "tags")),
    categories: list(text(form, "categories")),
    createdAfter: text(form, "created_after"),
    createdBefore: text(form, "created_before"),
    includeArchived: checked(form, "include_archived"),
    includeSuperseded: checked(form, "include_superseded"),
    includeScheduled: checked(form, "include_scheduled"),
  };
}

/** Filters as hash-route parameters, so a view can be bookmarked and reloaded. */
export function filterParams(form: HTMLFormElement): URLSearchParams {
  const p = new URLSearchParams();
  for (const n of ["tags", "categories", "created_after", "created_before"]) if (text(form, n)) p.set(n, text(form, n));
  for (const n of ["include_archived", "include_superseded", "include_scheduled"]) if (checked(form, n)) p.set(n, "1");
  return p;
}

export function paramValues(p: URLSearchParams): FilterValues {
  return {
    tags: p.get("tags") ?? "",
    categories: p.get("categories") ?? "",
    created_after: p.get("created_after") ?? "",
    created_before: p.get("created_before") ?? "",
    include_archived: p.get("include_archived") === "1",
    include_superseded: p.get("include_superseded") === "1",
    include_scheduled: p.get("include_scheduled") === "1",
  };
}

/**
 * A count knob as typed. The server judges its range, a number no uint64
 * holds included (the page speaks Connect JSON, which carries any whole
 * number, and the server answers it out_of_range with the field's cap, as it
 * answers the CLI and MCP); the page only refuses what is not a whole number,
 * since it cannot be put on the wire at all.
 */
export function count(form: HTMLFormElement, name: string): bigint | undefined {
  const t = text(form, name);
  if (t === "") return 0n;
  return /^\d+$/.test(t) ? BigInt(t) : undefined;
}
