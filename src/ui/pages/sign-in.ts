import { field, h, text } from "../dom.js";
import { rejectionBox, showRejection, clearRejection } from "../rejection.js";
import { readableScopes } from "../scopes.js";
import { authInfo, forgetToken, signIn } from "../session.js";

/** Why a sign-in through the issuer came back without a session, by the word the server put in the URL. */
const ISSUER_FAILURES: Record<string, string> = {
  state: "The sign-in expired or was started in another tab; try again.",
  denied: "The identity provider did not sign you in.",
  owner: "The identity provider signed you in, but named no verified owner this server accepts.",
  issuer: "The identity provider could not be reached.",
};

/** Said when the page came back here because the server no longer honours the session. */
const SESSION_ENDED = "Your session has ended (you signed out, or it expired). Sign in again.";

/**
 * Sign in through the server's identity provider when it has one, or with a
 * bearer token, or continue without one on an anonymous server; listing the
 * readable scopes proves a token works.
 */
export async function signInPage(main: HTMLElement, params: URLSearchParams = new URLSearchParams()): Promise<void> {
  const errors = rejectionBox();
  const attempt = async (bearer: string) => {
    clearRejection(errors, form);
    signIn(bearer);
    try {
      await readableScopes();
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
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Sign in")),
  );
  const failed = params.get("ended") === "1" ? SESSION_ENDED : ISSUER_FAILURES[params.get("failed") ?? ""];
  const viaIssuer = h("p", { hidden: true });
  const anonymous = h("div", { hidden: true, id: "anonymous-server", class: "notice" });
  main.append(
    h("h1", { tabindex: "-1" }, "Sign in"),
    ...(failed ? [h("p", { role: "alert", id: "issuer-failed" }, failed)] : []),
    anonymous,
    viaIssuer,
    h("p", {}, "The console calls the same Connect service as any client, with the same auth, Origin check and limits."),
    form,
    errors,
  );
  // The heading is up before this waits; what is offered depends on the server.
  const info = await authInfo();
  // Marks the form once the page knows what the server offers (the browser test waits for it).
  form.dataset.asked = "";
  if (info.anonymous) {
    anonymous.append(
      h("p", {}, "This server runs anonymous: it has no tokens and no identity provider, every caller shares one owner, and no sign-in is needed."),
      h("button", { type: "button", id: "anonymous", onclick: () => void attempt("") }, "Continue without a token"),
    );
    anonymous.hidden = false;
  }
  if (info.issuer_sign_in) {
    viaIssuer.append(h("button", { type: "button", id: "issuer-sign-in", onclick: () => (location.href = "/ui/login") }, "Sign in with your identity provider"));
    viaIssuer.hidden = false;
  }
}
