import { engram } from "../client.js";
import { field, h, text } from "../dom.js";
import { rejectionBox, showRejection, clearRejection } from "../rejection.js";
import { signIn, signOut } from "../session.js";

/** Sign in with a bearer token, or continue without one on an anonymous server; ListScopes proves it works. */
export async function signInPage(main: HTMLElement): Promise<void> {
  const errors = rejectionBox();
  const attempt = async (bearer: string) => {
    clearRejection(errors, form);
    signIn(bearer);
    try {
      await engram.listScopes({});
      location.hash = "#/scopes";
    } catch (err) {
      signOut();
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
  main.append(
    h("h1", { tabindex: "-1" }, "Sign in"),
    h("p", {}, "The console calls the same Connect service as any client, with the same auth, Origin check and limits. A server with no tokens configured is anonymous: continue without one."),
    form,
    errors,
  );
}
