import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { ArchiveOutcome, type Memory, type RecallGateHidden } from "../gen/engram/v1/engram_pb.js";
import { h } from "./dom.js";

const READABLE = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * A moment as people read it, in the browser's own time zone and language
 * ("6 Dec 2026, 05:33"), inside a <time> whose datetime and tooltip keep the
 * exact RFC 3339 value the API sent. Empty when there is none.
 */
export function when(ts: Timestamp | undefined): HTMLTimeElement | "" {
  if (!ts) return "";
  const d = timestampDate(ts);
  const exact = d.toISOString().replace(".000Z", "Z");
  return h("time", { datetime: exact, title: exact }, READABLE.format(d));
}

/** The wire spelling of an outcome, as the CLI and MCP print it. */
export function outcomeName(o: ArchiveOutcome): string {
  return (ArchiveOutcome[o] ?? "UNSPECIFIED").replace(/^ARCHIVE_OUTCOME_/, "").toLowerCase();
}

export function recordLink(m: Pick<Memory, "id" | "shortId">): HTMLAnchorElement {
  return h("a", { href: `#/record/${encodeURIComponent(m.id)}` }, m.shortId || m.id);
}

/** What the recall gate kept off this page, one count per reason. */
export function hiddenSummary(g: RecallGateHidden | undefined): HTMLElement {
  const n = (v: bigint | undefined) => String(v ?? 0n);
  return h(
    "p",
    { class: "gate-hidden" },
    "Hidden by the recall gate in this page (recall_gate_hidden): ",
    h("strong", { "data-gate": "total" }, n(g?.total)),
    " total; archived ",
    h("span", { "data-gate": "archived" }, n(g?.archived)),
    ", superseded ",
    h("span", { "data-gate": "superseded" }, n(g?.superseded)),
    ", expired ",
    h("span", { "data-gate": "expired" }, n(g?.expired)),
    ", scheduled ",
    h("span", { "data-gate": "scheduled" }, n(g?.scheduled)),
    ".",
  );
}

/** The state words a row carries beyond being live. */
export function badges(m: Memory): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (m.archivedAt) out.push(h("span", { class: "badge" }, "archived"));
  if (m.supersededBy !== undefined) out.push(h("span", { class: "badge" }, "superseded"));
  if (m.notBefore || m.notAfter) out.push(h("span", { class: "badge" }, "windowed"));
  if (m.visibility === "shared") out.push(h("span", { class: "badge" }, "shared"));
  return out;
}
