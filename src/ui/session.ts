/**
 * The bearer token lives in sessionStorage: it ends with the tab, is never
 * written to localStorage, a cookie or the URL. An empty string means the
 * operator chose to continue without a token (an anonymous server).
 */
const KEY = "engram.console.token";

export function signedIn(): boolean {
  return sessionStorage.getItem(KEY) !== null;
}

export function token(): string {
  return sessionStorage.getItem(KEY) ?? "";
}

export function signIn(bearer: string): void {
  sessionStorage.setItem(KEY, bearer);
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
}
