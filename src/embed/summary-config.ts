import { ChatSummarizer, DEFAULT_SUMMARY_MAX_TOKENS, DEFAULT_SUMMARY_RESPONSE_BYTES } from "./chat-summarizer.js";
import { intSetting, type EmbedderEnv } from "./config.js";
import { endpointUrl } from "./openai-endpoint.js";
import { MAX_OPENAI_TIMEOUT_MS } from "./openai-embedder.js";

/**
 * The summary settings. Nothing is ever sent to a summarizer unless
 * ENGRAM_SUMMARY_MODEL names a model; then:
 *
 * - ENGRAM_OPENAI_CHAT_BASE_URL: the chat-completions base URL; unset, the
 *   embedder's ENGRAM_OPENAI_BASE_URL. One of them is required.
 * - ENGRAM_OPENAI_CHAT_API_KEY: the bearer key; unset, ENGRAM_OPENAI_API_KEY,
 *   but only when the base URL is the embedder's too (a key is never sent to
 *   a host it was not configured for).
 * - ENGRAM_SUMMARY_MAX_TOKENS (1024; 0 leaves it to the provider),
 *   ENGRAM_SUMMARY_TIMEOUT (30s) under the ceiling ENGRAM_SUMMARY_MAX_TIMEOUT
 *   (10m; a timeout of 0 means the ceiling).
 * - ENGRAM_SUMMARY_ON_WRITE (false): summarize new records in the background
 *   on a queue of ENGRAM_SUMMARY_QUEUE_SIZE (256) drained by
 *   ENGRAM_SUMMARY_WORKERS (2).
 *
 * Empty values count as unset. A bad value throws an Error naming the
 * variable; the base URL and the key are never quoted.
 */
export type SummaryConfig = {
  summarizer: ChatSummarizer;
  onWrite: boolean;
  workers: number;
  queueSize: number;
};

export const SUMMARY_MODEL_ENV = "ENGRAM_SUMMARY_MODEL";
export const DEFAULT_SUMMARY_TIMEOUT_MS = 30_000;
export const DEFAULT_SUMMARY_MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_SUMMARY_WORKERS = 2;
export const DEFAULT_SUMMARY_QUEUE_SIZE = 256;

/** `30s`, `500ms`, `2m`, `1h`, or `0`; undefined when malformed. */
function durationMs(text: string): number | undefined {
  if (/^0+$/.test(text)) return 0;
  const m = /^([0-9]{1,9})(ms|s|m|h)$/.exec(text);
  if (m === null) return undefined;
  return Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as "ms" | "s" | "m" | "h"];
}

function durationSetting(get: (name: string) => string | undefined, name: string, dflt: number): number {
  const text = get(name);
  if (text === undefined) return dflt;
  const ms = durationMs(text);
  if (ms === undefined) throw new Error(`${name} must be a duration such as "30s", "500ms" or "2m"`);
  return ms;
}

function boolSetting(get: (name: string) => string | undefined, name: string): boolean {
  const text = get(name)?.toLowerCase();
  if (text === undefined || text === "false" || text === "0") return false;
  if (text === "true" || text === "1") return true;
  throw new Error(`${name} must be true or false`);
}

/** The summary settings, or undefined when no summary model is configured. */
export function summaryConfigFromEnv(env: EmbedderEnv = process.env): SummaryConfig | undefined {
  const get = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const model = get(SUMMARY_MODEL_ENV);
  if (model === undefined) return undefined;
  const chatBase = get("ENGRAM_OPENAI_CHAT_BASE_URL");
  const baseUrl = chatBase ?? get("ENGRAM_OPENAI_BASE_URL");
  if (baseUrl === undefined) {
    throw new Error(
      `${SUMMARY_MODEL_ENV} is set but neither ENGRAM_OPENAI_CHAT_BASE_URL nor ENGRAM_OPENAI_BASE_URL is; set ENGRAM_OPENAI_CHAT_BASE_URL to the base URL of the chat-completions endpoint`,
    );
  }
  try {
    endpointUrl(baseUrl, "chat/completions", "chat");
  } catch {
    throw new Error(`${chatBase !== undefined ? "ENGRAM_OPENAI_CHAT_BASE_URL" : "ENGRAM_OPENAI_BASE_URL"} must be an absolute http:// or https:// URL`);
  }
  const apiKey = get("ENGRAM_OPENAI_CHAT_API_KEY") ?? (chatBase === undefined ? get("ENGRAM_OPENAI_API_KEY") : undefined);
  // Refused rather than lowered: a timeout past its ceiling (or past the longest timer) would not be the one set.
  const ceiling = durationSetting(get, "ENGRAM_SUMMARY_MAX_TIMEOUT", DEFAULT_SUMMARY_MAX_TIMEOUT_MS) || DEFAULT_SUMMARY_MAX_TIMEOUT_MS;
  if (ceiling > MAX_OPENAI_TIMEOUT_MS) throw new Error(`ENGRAM_SUMMARY_MAX_TIMEOUT must be at most ${MAX_OPENAI_TIMEOUT_MS}ms`);
  const timeout = durationSetting(get, "ENGRAM_SUMMARY_TIMEOUT", DEFAULT_SUMMARY_TIMEOUT_MS);
  if (get("ENGRAM_SUMMARY_TIMEOUT") !== undefined && timeout > ceiling) {
    throw new Error("ENGRAM_SUMMARY_TIMEOUT must be at most ENGRAM_SUMMARY_MAX_TIMEOUT (10m unless set)");
  }
  // Only the default is lowered to a ceiling set below it.
  const timeoutMs = timeout === 0 ? ceiling : Math.min(timeout, ceiling);
  const summarizer = new ChatSummarizer({
    baseUrl,
    apiKey,
    model,
    maxTokens: intSetting(get, "ENGRAM_SUMMARY_MAX_TOKENS", 0, 1_000_000) ?? DEFAULT_SUMMARY_MAX_TOKENS,
    timeoutMs,
    maxResponseBytes: DEFAULT_SUMMARY_RESPONSE_BYTES,
  });
  return {
    summarizer,
    onWrite: boolSetting(get, "ENGRAM_SUMMARY_ON_WRITE"),
    workers: intSetting(get, "ENGRAM_SUMMARY_WORKERS", 1, 64) ?? DEFAULT_SUMMARY_WORKERS,
    queueSize: intSetting(get, "ENGRAM_SUMMARY_QUEUE_SIZE", 1, 65_536) ?? DEFAULT_SUMMARY_QUEUE_SIZE,
  };
}
