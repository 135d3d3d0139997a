/**
 * The listener's settings from the environment and the flags: where it
 * binds, which browser origins may call it, how long a request may take to
 * arrive. Each refuses what it cannot use at start, naming the variable.
 */
import net from "node:net";
import { MAX_TIMER_MS } from "./model/index.js";

export const ALLOWED_ORIGINS_ENV = "ENGRAM_ALLOWED_ORIGINS";

export const DEFAULT_LISTEN_ADDR = "127.0.0.1:8080";

/** The address serve listens on: the flag, else ENGRAM_LISTEN_ADDR unless blank (blank is unset, as for every setting), else the default. */
export function listenAddrOf(env: NodeJS.ProcessEnv, flag?: string): string {
  const set = env.ENGRAM_LISTEN_ADDR;
  return flag ?? (set !== undefined && set.trim() !== "" ? set : DEFAULT_LISTEN_ADDR);
}

export const REQUEST_TIMEOUT_ENV = "ENGRAM_REQUEST_TIMEOUT_MS";
/** A client that has not sent its whole request by then is dropped (slow-body attacks). */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * `ENGRAM_ALLOWED_ORIGINS`: comma-separated origins (`https://app.example`).
 * Each is normalised as a browser serialises it; anything that is not an
 * http(s) origin fails startup.
 */
export function allowedOriginsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env[ALLOWED_ORIGINS_ENV] ?? "";
  return raw
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e.length > 0)
    .map((e, i) => {
      const origin = originOf(e);
      if (origin === undefined) throw new Error(`${ALLOWED_ORIGINS_ENV}: entry ${i + 1} must be an http(s) origin such as https://app.example`);
      return origin;
    });
}

export function requestTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[REQUEST_TIMEOUT_ENV];
  if (raw === undefined || raw.trim() === "") return REQUEST_TIMEOUT_MS;
  // Past the longest a Node timer waits, the timer would fire at once and drop every request.
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > MAX_TIMER_MS) {
    throw new Error(`${REQUEST_TIMEOUT_ENV} must be a positive integer (milliseconds) of at most ${MAX_TIMER_MS}`);
  }
  return Number(raw);
}

/** The serialised origin of an http(s) URL, or undefined. */
export function originOf(text: string): string | undefined {
  try {
    const u = new URL(text);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    if (u.pathname !== "/" || u.search !== "" || u.hash !== "" || u.username !== "" || text.endsWith("/")) return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

/**
 * Parses "host:port" / "[v6]:port" / ":port" (all interfaces). Throws on
 * anything else.
 */
export function parseListenAddr(addr: string): { host: string; port: number } {
  const usage = "listen address must be host:port (e.g. 127.0.0.1:8080 or [::1]:8080)";
  const text = addr.trim();
  let host: string;
  let portText: string;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close < 0 || text[close + 1] !== ":") throw new Error(usage);
    host = text.slice(1, close);
    portText = text.slice(close + 2);
    if (host.length === 0 || net.isIPv6(host) === false) {
      throw new Error(`${usage}: bracketed host must be an IPv6 address`);
    }
  } else {
    const colon = text.lastIndexOf(":");
    if (colon < 0) throw new Error(usage);
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (host.includes(":")) throw new Error(`${usage}: put IPv6 addresses in brackets`);
    if (host.length === 0) host = "0.0.0.0";
    if (!/^[A-Za-z0-9.-]+$/.test(host)) throw new Error(`${usage}: invalid host`);
  }
  if (!/^\d{1,5}$/.test(portText)) throw new Error(`${usage}: port must be a number 0-65535`);
  const port = Number(portText);
  if (port > 65535) throw new Error(`${usage}: port must be a number 0-65535`);
  return { host, port };
}
