/**
 * A console sign-in through the issuer, walked with plain HTTP as a browser
 * would: engram's /ui/login, the provider's login and consent pages, and
 * engram's callback. What comes back is what the browser would then hold:
 * the session cookie and the CSRF value the page sends as X-CSRF-Token.
 */
export type ConsoleCookies = { session: string; csrf: string; header: string };

type Jar = Map<string, string>;

function keep(jar: Jar, r: Response): void {
  for (const c of r.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const eq = pair!.indexOf("=");
    jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
  }
}

async function get(jar: Jar, url: string, init: RequestInit = {}): Promise<Response> {
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const r = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as Record<string, string>), cookie } });
  keep(jar, r);
  return r;
}

export async function signInThroughIssuer(serverUrl: string, issuerUrl: string, account: string): Promise<ConsoleCookies> {
  const engram: Jar = new Map();
  const provider: Jar = new Map();
  let r = await get(engram, `${serverUrl}/ui/login`);
  for (let step = 0; step < 10; step++) {
    const location = new URL(r.headers.get("location") ?? "", issuerUrl).toString();
    if (location.startsWith(serverUrl)) {
      r = await get(engram, location);
      const session = engram.get("engram_session");
      const csrf = engram.get("engram_csrf");
      if (!session || !csrf) throw new Error(`the callback set no session (went to ${r.headers.get("location")})`);
      return { session, csrf, header: `engram_session=${session}; engram_csrf=${csrf}` };
    }
    if (location.includes("/interaction/")) {
      const page = await (await get(provider, location)).text();
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1] ?? "consent";
      r = await get(provider, location, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ prompt, login: account, password: "any" }) });
    } else {
      r = await get(provider, location);
    }
  }
  throw new Error("the sign-in did not come back to the console");
}
