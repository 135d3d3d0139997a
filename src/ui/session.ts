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

/** What `GET /ui/auth` says: issuer sign-in offered, an anonymous server, and who this tab's credential is. */
export type AuthInfo = { issuer_sign_in: boolean; anonymous: boolean; session: { owner: string; actor: string } | null };

/** Asks the server who this tab is signed in as, with the same credential the calls carry. */
export async function authInfo(): Promise<AuthInfo> {
  const t = sessionStorage.getItem(KEY);
  try {
    const r = await fetch("/ui/auth", { headers: t ? { authorization: `Bearer ${t}` } : {} });
    const j = (await r.json()) as Partial<AuthInfo>;
    return { issuer_sign_in: j.issuer_sign_in === true, anonymous: j.anonymous === true, session: j.session ?? null };
  } catch {
    return { issuer_sign_in: false, anonymous: false, session: null };
  }
}

/**
 * An issuer session the server no longer honours (signed out elsewhere, or
 * expired): its readable CSRF cookie is dropped, so the page stops acting
 * signed in, and the sign-in page says why.
 */
export function sessionEnded(): void {
  document.cookie = `${CSRF_COOKIE}=; Max-Age=0; Path=/`;
  location.hash = "#/sign-in?ended=1";
}

/** Forgets the token, and ends an issuer session on the server (which clears its cookies). */
export async function signOut(): Promise<void> {
  forgetToken();
  const csrf = csrfToken();
  if (csrf !== undefined) await fetch("/ui/logout", { method: "POST", headers: { "x-csrf-token": csrf } }).catch(() => undefined);
}
