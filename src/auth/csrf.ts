/**
 * The console's CSRF token: a random id and an HMAC of it with the owner,
 * under a key derived from the cookie key. The page reads it from the
 * `engram_csrf` cookie and sends it back in `X-CSRF-Token`; another site can
 * make the browser send the cookie but cannot read it, so it cannot send the
 * header. Binding the owner means a token minted for one session's owner
 * does not verify for another's.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const CSRF_COOKIE = "engram_csrf";
export const CSRF_HEADER = "x-csrf-token";
const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

function mac(key: Buffer, id: string, owner: string): string {
  return createHmac("sha256", key).update(`${id}\u0000${owner}`, "utf8").digest("base64url");
}

export function mintCsrfToken(key: Buffer, owner: string): string {
  const id = randomBytes(16).toString("base64url");
  return `${id}.${mac(key, id, owner)}`;
}

/** True when the cookie and the header carry the same token and it was minted for this owner. */
export function csrfVerified(key: Buffer, owner: string, cookie: string | undefined, header: string | undefined): boolean {
  if (cookie === undefined || header === undefined) return false;
  const a = Buffer.from(cookie);
  const b = Buffer.from(header);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return false;
  const m = TOKEN.exec(cookie);
  if (!m) return false;
  const want = Buffer.from(mac(key, m[1]!, owner));
  const got = Buffer.from(m[2]!);
  return want.length === got.length && timingSafeEqual(want, got);
}
