import type { Embedder } from "./embedder.js";
import { sharedLocalEmbedder } from "./pooled-embedder.js";
import { embeddingsUrl, MAX_OPENAI_TIMEOUT_MS, OpenAIEmbedder } from "./openai-embedder.js";

export type EmbedderEnv = Readonly<Record<string, string | undefined>>;

/** Settings that only mean something for the OpenAI-compatible embedder. */
const OPENAI_ONLY = ["ENGRAM_EMBED_MODEL", "ENGRAM_EMBED_DIM", "ENGRAM_OPENAI_API_KEY", "ENGRAM_EMBED_TIMEOUT"] as const;

/**
 * The embedder the environment asks for.
 *
 * - Default: the bundled local model in a pool of worker threads (the
 *   per-process shared pool). `ENGRAM_EMBED_WORKERS` (1–64; default one per
 *   core beyond the first, at most 4) sets the threads.
 * - `ENGRAM_EMBED_QUEUE` (0–10000, default 32): requests that may wait for a
 *   busy embedder, local or OpenAI-compatible; one more answers unavailable.
 * - `ENGRAM_OPENAI_BASE_URL` set: an OpenAI-compatible endpoint, which also
 *   needs `ENGRAM_EMBED_MODEL` and `ENGRAM_EMBED_DIM` (positive integer);
 *   `ENGRAM_OPENAI_API_KEY` and `ENGRAM_EMBED_TIMEOUT` ("30s", "500ms",
 *   "2m"; default 30s) are optional.
 *
 * Empty values count as unset. Invalid configuration throws an Error that
 * names the variable; values are quoted only for settings that cannot be
 * secret (the base URL may carry credentials, so it is never quoted).
 */
/** Past any embedding model's output; a larger dimension only makes the index fail to size itself. */
const MAX_EMBED_DIM = 65_536;

export function embedderFromEnv(env: EmbedderEnv = process.env): Embedder {
  const get = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };

  const queue = intSetting(get, "ENGRAM_EMBED_QUEUE", 0, 10_000);
  const baseUrl = get("ENGRAM_OPENAI_BASE_URL");
  if (baseUrl === undefined) {
    const stray = OPENAI_ONLY.filter((name) => get(name) !== undefined);
    if (stray.length > 0) {
      throw new Error(
        `${stray.join(", ")} ${stray.length === 1 ? "is" : "are"} set but ENGRAM_OPENAI_BASE_URL is not; ` +
          "these settings only apply to an OpenAI-compatible embedder. Set ENGRAM_OPENAI_BASE_URL, " +
          "or unset them to use the built-in local embedder",
      );
    }
    return sharedLocalEmbedder({ workers: intSetting(get, "ENGRAM_EMBED_WORKERS", 1, 64), queue });
  }

  try {
    embeddingsUrl(baseUrl);
  } catch {
    throw new Error("ENGRAM_OPENAI_BASE_URL must be an absolute http:// or https:// URL");
  }

  const model = get("ENGRAM_EMBED_MODEL");
  if (model === undefined) {
    throw new Error("ENGRAM_EMBED_MODEL is required when ENGRAM_OPENAI_BASE_URL is set (the embedding model name)");
  }

  const dimText = get("ENGRAM_EMBED_DIM");
  if (dimText === undefined) {
    throw new Error(
      "ENGRAM_EMBED_DIM is required when ENGRAM_OPENAI_BASE_URL is set (the model's output dimension, e.g. 1536)",
    );
  }
  const dim = /^[0-9]+$/.test(dimText) ? Number(dimText) : NaN;
  if (!Number.isSafeInteger(dim) || dim < 1 || dim > MAX_EMBED_DIM) {
    throw new Error(`ENGRAM_EMBED_DIM must be an integer from 1 to ${MAX_EMBED_DIM}`);
  }

  const timeoutText = get("ENGRAM_EMBED_TIMEOUT");
  let timeoutMs: number | undefined;
  if (timeoutText !== undefined) {
    timeoutMs = parseDurationMs(timeoutText);
    if (timeoutMs === undefined) {
      throw new Error(
        `ENGRAM_EMBED_TIMEOUT must be a positive duration such as "30s", "500ms" or "2m"`,
      );
    }
  }

  const apiKey = get("ENGRAM_OPENAI_API_KEY");
  return new OpenAIEmbedder({ baseUrl, apiKey, model, dim, timeoutMs, queue });
}

/** An optional integer setting within [min, max]; refused without its value, as every setting is. */
export function intSetting(get: (name: string) => string | undefined, name: string, min: number, max: number): number | undefined {
  const text = get(name);
  if (text === undefined) return undefined;
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

/**
 * "500ms" → 500, "30s" → 30000, "2m" → 120000; anything else → undefined,
 * including 0 and values beyond what a Node timer can hold (~24.8 days),
 * which AbortSignal.timeout would otherwise silently clamp to 1 ms.
 */
function parseDurationMs(text: string): number | undefined {
  const m = /^([0-9]+)(ms|s|m)$/.exec(text);
  if (m === null) return undefined;
  const ms = Number(m[1]) * (m[2] === "ms" ? 1 : m[2] === "s" ? 1_000 : 60_000);
  return ms > 0 && ms <= MAX_OPENAI_TIMEOUT_MS ? ms : undefined;
}
