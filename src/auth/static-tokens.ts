/**
 * Static bearer tokens.
 *
 * Operators configure `owner=token` pairs through `ENGRAM_AUTH_TOKENS`
 * (comma-separated) and/or `ENGRAM_AUTH_TOKENS_FILE` (same format; commas,
 * spaces and newlines all separate entries; lines starting with `#` are
 * comments). With no tokens at all the server runs anonymous: every caller is
 * `ANONYMOUS` (owner "").
 *
 * Token text never appears in an error message or a log line: parse errors
 * name an entry by its position only, and comparison runs over SHA-256
 * digests with `timingSafeEqual`, visiting every configured token, so neither
 * the token length nor the index of a match leaks through timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";

import { ANONYMOUS, ownerSubject, type Subject } from "../model/subject.js";
import { admitted, refused, type AuthLane, type AuthResult } from "./auth-result.js";
import type { Authenticator } from "./authenticator.js";
import { BEARER_TOKEN_FORBIDDEN } from "./bearer-token.js";
import { ownerShapeProblem } from "./owner-shape.js";

export const AUTH_TOKENS_ENV = "ENGRAM_AUTH_TOKENS";
export const AUTH_TOKENS_FILE_ENV = "ENGRAM_AUTH_TOKENS_FILE";
/** The original's name for the same `owner=token` list; both may be set and are merged. */
export const SERVICE_STATIC_TOKENS_ENV = "ENGRAM_SERVICE_AUTH_STATIC_TOKENS";


type ParseOptions = {
  /** Name used as the prefix of error messages (an env var name, or "token file"). */
  source?: string;
  /** When true, whitespace (including newlines) also separates entries, and `#` lines are comments. */
  whitespaceSeparated?: boolean;
};

type Entry = { readonly owner: string; readonly token: string; readonly position: number };

/** Splits and validates entries; positions are 1-based among the non-empty entries. */
function parseEntries(spec: string, options: ParseOptions): Entry[] {
  const source = options.source ?? AUTH_TOKENS_ENV;
  let text = spec;
  if (options.whitespaceSeparated) {
    text = text
      .split(/\r?\n/)
      .filter((line) => !line.trimStart().startsWith("#"))
      .join("\n");
  }
  const separator = options.whitespaceSeparated ? /[,\s]+/ : /,/;
  const raw = text
    .split(separator)
    .map((e) => e.trim())
    .filter((e) => e.length > 0);

  return raw.map((entry, i) => {
    const position = i + 1;
    const where = `${source}: entry ${position}`;
    const eq = entry.indexOf("=");
    if (eq < 0) {
      throw new Error(`${where} must have the form owner=token`);
    }
    const owner = entry.slice(0, eq).trim();
    const token = entry.slice(eq + 1).trim();
    if (owner.length === 0) {
      throw new Error(`${where} has an empty owner`);
    }
    if (token.length === 0) {
      throw new Error(`${where} has an empty token`);
    }
    // The owner ends at the first "=", so it never holds one.
    const problem = ownerShapeProblem(owner);
    if (problem === "whitespace") {
      throw new Error(`${where} has an owner with whitespace or control characters`);
    }
    if (problem === "namespaced") {
      throw new Error(`${where} has an owner in the <length>:<claim>: form the OIDC lanes use`);
    }
    if (BEARER_TOKEN_FORBIDDEN.test(token)) {
      throw new Error(`${where} has a token with whitespace or control characters`);
    }
    return { owner, token, position };
  });
}

/** Adds entries to `into` (token → owner), refusing one token for two owners. */
function mergeEntries(into: Map<string, string>, entries: readonly Entry[], source: string): void {
  for (const { owner, token, position } of entries) {
    const previous = into.get(token);
    if (previous !== undefined && previous !== owner) {
      throw new Error(`${source}: entry ${position} reuses a token already assigned to another owner`);
    }
    into.set(token, owner);
  }
}

/**
 * Parses `owner=token,owner2=token2` into a map from token to owner.
 *
 * The map is keyed by token so that one owner may hold several tokens (key
 * rotation); the same token for two different owners is rejected. Entries
 * are trimmed, empty entries are skipped. Errors name the entry by 1-based
 * position among the non-empty entries and never include the token text.
 */
export function parseTokenSpec(spec: string, options: ParseOptions = {}): Map<string, string> {
  const byToken = new Map<string, string>();
  mergeEntries(byToken, parseEntries(spec, options), options.source ?? AUTH_TOKENS_ENV);
  return byToken;
}

type Credential = { readonly owner: string; readonly digest: Buffer };

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** Matches `Bearer <token>` with a case-insensitive scheme. */
const BEARER = /^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i;

export class TokenAuth implements Authenticator {
  readonly #credentials: readonly Credential[];

  /** `tokens` maps token → owner (as returned by `parseTokenSpec`). Empty → anonymous mode. */
  constructor(tokens: ReadonlyMap<string, string> = new Map()) {
    this.#credentials = Object.freeze(
      [...tokens].map(([token, owner]) => Object.freeze({ owner, digest: sha256(token) })),
    );
  }

  /** True when no tokens are configured: every caller is `ANONYMOUS`. */
  get anonymous(): boolean {
    return this.#credentials.length === 0;
  }

  get lanes(): readonly AuthLane[] {
    return this.anonymous ? [] : ["static"];
  }

  /** The static lane as the listener asks it; `authenticate` is the same check, synchronous. */
  async resolve(authorizationHeader: string | undefined | null): Promise<AuthResult> {
    if (this.anonymous) return admitted(ANONYMOUS, "none");
    if (typeof authorizationHeader !== "string" || authorizationHeader.trim() === "") return refused("none", "missing");
    const subject = this.authenticate(authorizationHeader);
    return subject === undefined ? refused("static", "invalid") : admitted(subject, "static");
  }

  /** Number of configured tokens (safe to log). */
  get tokenCount(): number {
    return this.#credentials.length;
  }

  /** Distinct configured owners, sorted (safe to log). */
  owners(): string[] {
    return [...new Set(this.#credentials.map((c) => c.owner))].sort();
  }

  /**
   * Resolves an `Authorization` header value to a subject. Anonymous mode
   * always yields `ANONYMOUS`; otherwise a missing, malformed or unknown
   * bearer yields `undefined`.
   */
  authenticate(authorizationHeader: string | undefined | null): Subject | undefined {
    if (this.anonymous) return ANONYMOUS;
    if (typeof authorizationHeader !== "string") return undefined;
    const m = BEARER.exec(authorizationHeader);
    const presented = m?.[1];
    if (presented === undefined) return undefined;

    const digest = sha256(presented);
    // Visit every credential; no early exit, so the position of a match and
    // the number of near misses do not shape the timing.
    let found = -1;
    for (let i = 0; i < this.#credentials.length; i++) {
      const c = this.#credentials[i]!;
      const equal = timingSafeEqual(digest, c.digest);
      found = equal && found < 0 ? i : found;
    }
    return found < 0 ? undefined : ownerSubject(this.#credentials[found]!.owner);
  }

  /** Keeps tokens out of accidental `console.log(auth)` / JSON output. */
  toJSON(): Record<string, unknown> {
    return { anonymous: this.anonymous, owners: this.owners() };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `TokenAuth { anonymous: ${this.anonymous}, owners: ${this.owners().length} }`;
  }
}

/**
 * Builds the server's `TokenAuth` from `ENGRAM_AUTH_TOKENS`,
 * `ENGRAM_SERVICE_AUTH_STATIC_TOKENS` and/or `ENGRAM_AUTH_TOKENS_FILE`; any of
 * them may be set and they are merged. An empty or
 * unset `ENGRAM_AUTH_TOKENS` contributes nothing. A token file that is set
 * but holds no entries is refused (fail closed: an operator who points at a
 * token file expects auth to be on).
 */
export function loadTokenAuth(env: NodeJS.ProcessEnv = process.env): TokenAuth {
  const merged = new Map<string, string>();

  for (const name of [AUTH_TOKENS_ENV, SERVICE_STATIC_TOKENS_ENV]) {
    const inline = env[name];
    if (inline !== undefined && inline.trim() !== "") {
      const entries = parseEntries(inline, { source: name });
      // Set to something (a stray comma) that names no token: auth was meant to be on, so it fails closed, as the file form does.
      if (entries.length === 0) throw new Error(`${name} holds no owner=token entries`);
      mergeEntries(merged, entries, name);
    }
  }

  const file = env[AUTH_TOKENS_FILE_ENV];
  if (file !== undefined && file.trim() !== "") {
    let content: string;
    try {
      content = readFileSync(file.trim(), "utf8");
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "read error";
      // The path is not repeated: the inline form pasted here by mistake would print its tokens.
      throw new Error(`${AUTH_TOKENS_FILE_ENV}: cannot read the file it names (${code})`);
    }
    const entries = parseEntries(content, { source: AUTH_TOKENS_FILE_ENV, whitespaceSeparated: true });
    if (entries.length === 0) {
      throw new Error(`${AUTH_TOKENS_FILE_ENV}: the file it names holds no owner=token entries`);
    }
    mergeEntries(merged, entries, AUTH_TOKENS_FILE_ENV);
  }

  return new TokenAuth(merged);
}
