/**
 * Two ways to be signed in. A bearer token lives in sessionStorage: it ends
 * with the tab, is never written to localStorage, a cookie or the URL (an
 * empty string means the operator chose to continue without a token, on an
 * anonymous server). A sign-in through the issuer leaves an HttpOnly session
 * cookie the page cannot read, beside the `engram_csrf` cookie it can: the
 * page sends that value back as X-CSRF-Token, which a write from a session
 * needs.
 */
const KEY = "engram.console.token";
const CSRF_COOKIE = "engram_csrf";

/** The session's CSRF token, when the issuer signed this browser in. */
export function csrfToken(): string | undefined {
  for (const part of document.cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === CSRF_COOKIE && rest.length > 0 && rest.join("=") !== "") return rest.join("=");
  }
  return undefined;
}

export function signedIn(): boolean {
  return sessionStorage.getItem(KEY) !== null || csrfToken() !== undefined;
}

export function token(): string {
  return sessionStorage.getItem(KEY) ?? "";
}

export function signIn(bearer: string): void {
  sessionStorage.setItem(KEY, bearer);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}

/** Forgets the token, and ends an issuer session on the server (which clears its cookies). */
export async function signOut(): Promise<void> {
  forgetToken();
  const csrf = csrfToken();
  if (csrf !== undefined) await fetch("/ui/logout", { method: "POST", headers: { "x-csrf-token": csrf } }).catch(() => undefined);
}
