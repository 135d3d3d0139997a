import { engram } from "../client.js";
import { field, h, text } from "../dom.js";
import { rejectionBox, showRejection, clearRejection } from "../rejection.js";
import { forgetToken, signIn } from "../session.js";

/** Why a sign-in through the issuer came back without a session, by the word the server put in the URL. */
const ISSUER_FAILURES: Record<string, string> = {
  state: "The sign-in expired or was started in another tab; try again.",
  denied: "The identity provider did not sign you in.",
  owner: "The identity provider signed you in, but named no verified owner this server accepts.",
  issuer: "The identity provider could not be reached.",
};

/** Whether the server offers sign-in through its issuer. */
async function issuerSignIn(): Promise<boolean> {
  try {
    const r = await fetch("/ui/auth");
    return r.ok && ((await r.json()) as { issuer_sign_in?: unknown }).issuer_sign_in === true;
  } catch {
    return false;
  }
}

/**
 * Sign in through the server's identity provider when it has one, or with a
 * bearer token, or continue without one on an anonymous server; ListScopes
 * proves a token works.
 */
export async function signInPage(main: HTMLElement, params: URLSearchParams = new URLSearchParams()): Promise<void> {
  const errors = rejectionBox();
  const attempt = async (bearer: string) => {
    clearRejection(errors, form);
    signIn(bearer);
    try {
      await engram.listScopes({});
      location.hash = "#/scopes";
    } catch (err) {
      forgetToken();
      showRejection(errors, err, form);
    }
  };
  const form = h(
    "form",
    {
      id: "sign-in",
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        void attempt(text(form, "token"));
      },
    },
    field("token", "Bearer token", h("input", { type: "password", autocomplete: "off", spellcheck: "false" }), "Kept in this tab's session storage only; closing the tab forgets it."),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit" }, "Sign in"),
      h("button", { type: "button", id: "anonymous", onclick: () => void attempt("") }, "Continue without a token"),
    ),
  );
  const failed = ISSUER_FAILURES[params.get("failed") ?? ""];
  const viaIssuer = h("p", { hidden: true });
  main.append(
    h("h1", { tabindex: "-1" }, "Sign in"),
    ...(failed ? [h("p", { role: "alert", id: "issuer-failed" }, failed)] : []),
    viaIssuer,
    h("p", {}, "The console calls the same Connect service as any client, with the same auth, Origin check and limits. A server with no tokens configured is anonymous: continue without one."),
    form,
    errors,
  );
  // The heading is up before this waits; the button appears only where the server offers it.
  if (await issuerSignIn()) {
    viaIssuer.append(h("button", { type: "button", id: "issuer-sign-in", onclick: () => (location.href = "/ui/login") }, "Sign in with your identity provider"));
    viaIssuer.hidden = false;
  }
}
