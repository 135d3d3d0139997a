import { readFileSync } from "node:fs";
import { Option, type Command } from "commander";
import { type OutputMode, parseDurationMs, usageError } from "../cli-kit/index.js";
import { bearerTokenUnsendable } from "../auth/bearer-token.js";
import { MAX_TIMER_HOURS } from "../model/index.js";

/** Where and how a client verb talks to the server, resolved before any dial. */
export type ClientSettings = {
  baseUrl: string;
  token: string | undefined;
  timeoutMs: number;
  output: OutputMode;
  /** Skip TLS certificate verification (--insecure). */
  insecure: boolean;
};

export type ClientFlagValues = {
  server?: string;
  tokenFile?: string;
  output?: OutputMode;
  timeout?: string;
  insecure?: boolean;
};

export const INSECURE_WARNING = "WARNING: TLS certificate verification is disabled (--insecure); do not use against an untrusted network";

export const DEFAULT_TIMEOUT = "30s";
const MAX_TIMEOUT_MS = MAX_TIMER_HOURS * 3_600_000;

/**
 * The flags every client verb shares. Having `--server` is what marks a
 * command as client tier. There is deliberately no `--token` flag: a token on
 * the command line ends up in shell history and process listings.
 */
export function addClientFlags(cmd: Command): Command {
  return cmd
    .addOption(new Option("--server <url>", "base URL of the engram server").env("ENGRAM_SERVER_URL"))
    .addOption(
      new Option("--token-file <path>", "file holding the bearer token; ENGRAM_TOKEN, when set, wins over the file"),
    )
    .addOption(
      new Option("--output <format>", "output format").choices(["json", "text"]).default(undefined, "text on a TTY, else json"),
    )
    .addOption(
      new Option("--timeout <duration>", "per-RPC deadline, e.g. 500ms, 30s, 2m; must be positive")
        .env("ENGRAM_TIMEOUT")
        .default(DEFAULT_TIMEOUT),
    )
    // No environment fallback, as in the original CLI: skipping verification must be typed each time.
    .addOption(new Option("--insecure", "skip TLS certificate verification for an https:// --server (prints a warning)"));
}

/** Reads the shared flags. Every failure here is exit 2 and happens before a connection is opened. */
export function resolveClient(values: ClientFlagValues, cmd: Command, env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const output: OutputMode = values.output ?? (process.stdout.isTTY ? "text" : "json");

  const fromEnv = cmd.getOptionValueSource("timeout") === "env";
  // A blank ENGRAM_TIMEOUT is unset, as every setting; a blank --timeout was typed, and is refused.
  const timeoutText = fromEnv && (values.timeout ?? "").trim() === "" ? DEFAULT_TIMEOUT : (values.timeout ?? DEFAULT_TIMEOUT);
  const ms = parseDurationMs(timeoutText);
  const from = fromEnv ? "ENGRAM_TIMEOUT" : "--timeout";
  if (ms === undefined || ms <= 0) throw usageError(`${from} must be a positive duration such as 500ms, 30s or 2m`);
  // Node timers cannot wait longer than 2^31-1 ms; a longer deadline would fire at once.
  if (ms > MAX_TIMEOUT_MS) throw usageError(`${from} must be at most ${MAX_TIMER_HOURS}h`);

  const server = values.server?.trim() ?? "";
  if (server === "") throw usageError("--server or ENGRAM_SERVER_URL is required");
  const serverFrom = cmd.getOptionValueSource("server") === "env" ? "ENGRAM_SERVER_URL" : "--server";
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw usageError(`${serverFrom} must be an absolute http:// or https:// URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw usageError(`${serverFrom} must be an absolute http:// or https:// URL`);
  }

  const token = resolveToken(values.tokenFile, env);
  const insecure = values.insecure === true;
  if (insecure) process.stderr.write(`engram: ${INSECURE_WARNING}\n`);
  return { baseUrl: server.replace(/\/+$/, ""), token, timeoutMs: Math.ceil(ms), output, insecure };
}

/** A token is a secret: a bad one is named by where it came from, never shown. */
function checkToken(token: string, from: string): string {
  if (bearerTokenUnsendable(token)) {
    throw usageError(`${from} holds a token with whitespace, control or non-Latin-1 characters, which an Authorization header cannot carry`);
  }
  return token;
}

function resolveToken(tokenFile: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const fromEnv = env.ENGRAM_TOKEN?.trim();
  if (fromEnv) return checkToken(fromEnv, "ENGRAM_TOKEN");
  if (tokenFile === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(tokenFile, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
    throw usageError(`cannot read --token-file (${code})`);
  }
  const token = text.trim();
  if (token === "") throw usageError("--token-file is empty");
  return checkToken(token, "--token-file");
}
