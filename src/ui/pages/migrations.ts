import type { MigrateStatusResponse } from "../../gen/engram/v1/engram_pb.js";
import { engram } from "../client.js";
import { h } from "../dom.js";
import { rejectionBox, showRejection } from "../rejection.js";

const SVG = "http://www.w3.org/2000/svg";

function s(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

type Bar = { label: string; count: bigint; kind: "absent" | "pending" | "current" | "future" };

function bars(r: MigrateStatusResponse): Bar[] {
  const out: Bar[] = [];
  if (r.absent > 0n) out.push({ label: "no version", count: r.absent, kind: "absent" });
  for (const b of r.buckets) out.push({ label: `v${b.version}`, count: b.count, kind: b.version === r.currentVersion ? "current" : "pending" });
  for (const b of r.future) out.push({ label: `v${b.version}`, count: b.count, kind: "future" });
  return out;
}

/** The schema-version histogram as a bar chart, with the same numbers in a table. */
export async function migrationsPage(main: HTMLElement): Promise<void> {
  const errors = rejectionBox();
  main.append(h("h1", { tabindex: "-1" }, "Migration status"), errors);
  try {
    const r = await engram.migrateStatus({});
    const data = bars(r);
    const max = data.reduce((m, b) => (b.count > m ? b.count : m), 1n);
    const rowH = 28;
    const svg = s("svg", { viewBox: `0 0 400 ${Math.max(1, data.length) * rowH + 8}`, role: "img", "aria-labelledby": "chart-title", class: "chart" });
    svg.append(s("title", { id: "chart-title" }, `Records per schema version; current version ${r.currentVersion}`));
    data.forEach((b, i) => {
      const y = i * rowH + 4;
      const w = Math.max(2, Math.round((Number(b.count) / Number(max)) * 250));
      svg.append(
        s("text", { x: 0, y: y + 17, class: "label" }, b.label),
        s("rect", { x: 80, y, width: w, height: rowH - 8, class: `bar ${b.kind}` }),
        s("text", { x: 86 + w, y: y + 17, class: "value" }, String(b.count)),
      );
    });
    main.append(
      h(
        "p",
        { class: "summary-line" },
        `Current version ${r.currentVersion}. ${r.total} records; `,
        h("strong", { id: "pending" }, String(r.pending)),
        ` pending (unversioned or below current)${r.futureTotal > 0n ? `; ${r.futureTotal} at a version newer than this server` : ""}.`,
      ),
      data.length === 0 ? h("p", { class: "empty" }, "The store holds no records.") : svg,
      h(
        "div",
        { class: "scroll" },
        h(
          "table",
          { id: "versions" },
          h("caption", {}, "Records per schema version"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Version"), h("th", { scope: "col", class: "num" }, "Records"), h("th", { scope: "col" }, "State"))),
          h("tbody", {}, ...data.map((b) => h("tr", {}, h("td", {}, b.label), h("td", { class: "num" }, String(b.count)), h("td", {}, b.kind)))),
        ),
      ),
      h("p", { class: "note" }, "Migrating is an operator verb on the store's host: ", h("code", {}, "engram migrate"), "."),
    );
  } catch (err) {
    showRejection(errors, err);
  }
}
