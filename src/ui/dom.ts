/** A tiny element builder: the console needs no framework. */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((ev: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.replace(/^on/, ""), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, ...children);
}

/** A labelled control in a `.field` wrapper whose data-field is the request field it fills. */
export function field(name: string, label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = `f-${name}-${++seq}`;
  control.id = id;
  control.setAttribute("name", name);
  const help = hint ? h("span", { class: "help", id: `${id}-help` }, hint) : null;
  if (help) control.setAttribute("aria-describedby", help.id);
  return h("div", { class: "field", "data-field": name }, h("label", { for: id }, label), control, help);
}

/** A checkbox with its label after it. */
export function toggle(name: string, label: string, checked = false): HTMLElement {
  const id = `f-${name}-${++seq}`;
  const box = h("input", { type: "checkbox", id, name, checked });
  return h("div", { class: "field toggle", "data-field": name }, box, h("label", { for: id }, label));
}

let seq = 0;

export function text(form: HTMLFormElement, name: string): string {
  const el = form.elements.namedItem(name);
  return el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement ? el.value.trim() : "";
}

export function checked(form: HTMLFormElement, name: string): boolean {
  const el = form.elements.namedItem(name);
  return el instanceof HTMLInputElement && el.checked;
}

/** Every checked box of a group sharing one name. */
export function checkedValues(form: HTMLFormElement, name: string): string[] {
  return [...form.querySelectorAll<HTMLInputElement>(`input[type=checkbox][name="${name}"]`)].filter((b) => b.checked).map((b) => b.value);
}

/** A comma- or newline-separated list as typed; empty entries dropped, nothing else judged. */
export function list(value: string): string[] {
  return value
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
