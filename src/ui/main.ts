import { h, replace } from "./dom.js";
import { archivePage } from "./pages/archive.js";
import { migrationsPage } from "./pages/migrations.js";
import { recordPage } from "./pages/record.js";
import { recordsPage } from "./pages/records.js";
import { scopesPage } from "./pages/scopes.js";
import { searchPage } from "./pages/search.js";
import { signInPage } from "./pages/sign-in.js";
import { spineReviewPage } from "./pages/spine-review.js";
import { authInfo, csrfToken, sessionEnded, signedIn, signOut, token, type AuthInfo } from "./session.js";

/** Set once, when the first page has its data on screen; the browser test reads it. */
export const FIRST_RENDER_MARK = "engram:first-render";

const NAV: [string, string][] = [
  ["#/scopes", "Scopes"],
  ["#/search", "Search"],
  ["#/archive", "Archive / restore"],
  ["#/migrations", "Migrations"],
  ["#/spine-review", "Spine review"],
];

const main = document.getElementById("main")!;
const nav = document.getElementById("nav")!;
let firstRender = true;
let generation = 0;

async function route(): Promise<void> {
  const raw = location.hash.replace(/^#/, "") || "/scopes";
  const q = raw.indexOf("?");
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q < 0 ? "" : raw.slice(q + 1));
  const [, page = "", arg = ""] = path.split("/");
  if (!signedIn() && page !== "sign-in") {
    location.hash = "#/sign-in";
    return;
  }
  const mine = ++generation;
  renderNav(page);
  const view = h("div", {});
  replace(main, view);
  const rendered = render(page, view, decoded(arg), params);
  // Every page puts its heading up before it waits for data; focusing it now
  // leaves a rejection free to move focus to the field it names.
  if (!firstRender) view.querySelector<HTMLElement>("h1")?.focus();
  await rendered;
  if (mine !== generation) return;
  document.title = `${view.querySelector("h1")?.textContent ?? "Console"} · engram`;
  if (firstRender) {
    firstRender = false;
    performance.mark(FIRST_RENDER_MARK);
  }
}

function decoded(arg: string): string {
  try {
    return decodeURIComponent(arg);
  } catch {
    return arg;
  }
}

function render(page: string, view: HTMLElement, arg: string, params: URLSearchParams): Promise<void> {
  switch (page) {
    case "sign-in":
      return signInPage(view, params);
    case "records":
      return recordsPage(view, arg, params);
    case "search":
      return searchPage(view, params);
    case "record":
      return recordPage(view, arg);
    case "archive":
      return archivePage(view);
    case "migrations":
      return migrationsPage(view);
    case "spine-review":
      return spineReviewPage(view);
    default:
      return scopesPage(view);
  }
}

/** Who the page acts as, in the words its holder knows: the identity they signed in with, or the anonymous server's shared owner. */
function identityText(info: AuthInfo): string {
  if (info.anonymous) return "Anonymous server: every caller shares one owner";
  if (info.session === null) return "";
  const { owner, actor } = info.session;
  return `Signed in as ${actor !== "" && actor !== owner ? `${actor} (owner ${owner})` : owner}`;
}

function renderNav(page: string): void {
  const who = h("span", { id: "whoami", class: "whoami" });
  replace(
    nav,
    ...(signedIn()
      ? [
          ...NAV.map(([href, label]) => h("a", { href, "aria-current": href === `#/${page}` ? "page" : null }, label)),
          who,
          h("button", { type: "button", id: "sign-out", onclick: () => void signOut().then(() => (location.hash = "#/sign-in")) }, "Sign out"),
        ]
      : []),
  );
  if (!signedIn()) return;
  void authInfo().then((info) => {
    // The cookie the page reads outlived the session the server kept.
    if (info.session === null && token() === "" && csrfToken() !== undefined) sessionEnded();
    else who.textContent = identityText(info);
  });
}

// The skip link must not touch the hash, which is the router's.
document.querySelector(".skip")?.addEventListener("click", (ev) => {
  ev.preventDefault();
  main.focus();
});
window.addEventListener("hashchange", () => void route());
void route();
