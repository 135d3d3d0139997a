import { Code, ConnectError } from "@connectrpc/connect";
import { CONNECT_CODE_NAME } from "../argerror/connect-code.js";
import { parse } from "../argerror/parse.js";
import { HINT_TABLE } from "../argerror/vocabulary.js";
import { h, replace } from "./dom.js";

/**
 * Shows a failed call as what it is. An envelope names fields, a hint and a
 * detail: the named fields are marked in the form, the hint's meaning and
 * remedy come from the one vocabulary table (bundled from src/argerror, not
 * retyped), and the detail is the human part. Anything else (a sentinel such
 * as "not found: …", unauthenticated, unavailable) is shown verbatim with its
 * Connect code.
 */
export function showRejection(box: HTMLElement, err: unknown, form?: HTMLFormElement): void {
  clearMarks(form);
  const e = ConnectError.from(err);
  const code = CONNECT_CODE_NAME[e.code] ?? "unknown";
  const parsed = parse(e.rawMessage);
  box.hidden = false;
  box.className = "rejection";
  if (parsed.kind === "opaque") {
    replace(
      box,
      h("p", { class: "rejection-title" }, `Rejected (${code})`),
      h("p", { class: "detail" }, parsed.text),
      e.code === Code.Unauthenticated ? h("p", {}, h("a", { href: "#/sign-in" }, "Sign in again")) : null,
    );
    focusBox(box);
    return;
  }
  const { fields, hint, detail } = parsed;
  const entry = HINT_TABLE[hint];
  const marked = form ? markFields(form, fields, box.id) : [];
  replace(
    box,
    h("p", { class: "rejection-title" }, `Rejected (${code}): hint `, h("code", { class: "hint" }, hint)),
    h(
      "dl",
      {},
      h("dt", {}, "Fields"),
      h("dd", { class: "fields" }, ...fields.flatMap((f, i) => [i > 0 ? ", " : "", h("code", {}, f)])),
      h("dt", {}, "What it means"),
      h("dd", { class: "meaning" }, entry.meaning),
      h("dt", {}, "What to do"),
      h("dd", { class: "remedy" }, entry.remedy),
      h("dt", {}, "Detail"),
      h("dd", { class: "detail" }, detail),
    ),
  );
  if (marked[0]) marked[0].focus();
  else focusBox(box);
}

export function clearRejection(box: HTMLElement, form?: HTMLFormElement): void {
  clearMarks(form);
  box.hidden = true;
  box.replaceChildren();
}

/** `tags[i]` and `citations[i].kind` mark the control that fills `tags` / `citations`. */
function baseName(field: string): string {
  return field.replace(/[[.].*$/, "");
}

function markFields(form: HTMLFormElement, fields: readonly string[], boxId: string): HTMLElement[] {
  const controls: HTMLElement[] = [];
  for (const f of fields) {
    for (const wrap of form.querySelectorAll<HTMLElement>(`[data-field="${CSS.escape(baseName(f))}"]`)) {
      wrap.classList.add("invalid");
      const note = h("span", { class: "invalid-note" }, "named in the rejection");
      wrap.append(note);
      for (const c of wrap.querySelectorAll<HTMLElement>("input, select, textarea")) {
        c.setAttribute("aria-invalid", "true");
        c.dataset.describedBefore = c.getAttribute("aria-describedby") ?? "";
        c.setAttribute("aria-describedby", `${c.dataset.describedBefore} ${boxId}`.trim());
        controls.push(c);
      }
    }
  }
  return controls;
}

function clearMarks(form?: HTMLFormElement): void {
  if (!form) return;
  for (const wrap of form.querySelectorAll(".invalid")) wrap.classList.remove("invalid");
  for (const n of form.querySelectorAll(".invalid-note")) n.remove();
  for (const c of form.querySelectorAll<HTMLElement>("[aria-invalid]")) {
    c.removeAttribute("aria-invalid");
    const before = c.dataset.describedBefore ?? "";
    if (before) c.setAttribute("aria-describedby", before);
    else c.removeAttribute("aria-describedby");
    delete c.dataset.describedBefore;
  }
}

function focusBox(box: HTMLElement): void {
  box.tabIndex = -1;
  box.focus();
}

/** A rejection region: announced when it fills. */
export function rejectionBox(): HTMLElement {
  return h("div", { id: `rejection-${++seq}`, role: "alert", hidden: true });
}

let seq = 0;
