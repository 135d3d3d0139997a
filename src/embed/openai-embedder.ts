import { Admission } from "./admission.js";
import { chunks } from "./chunks.js";
import type { Embedder, EmbedderIdentity } from "./embedder.js";
import { EmbedderError } from "./embedder-error.js";
import { endpointName, endpointUrl, providerErrorCode, transportCause } from "./openai-endpoint.js";
import { toUnitVector } from "./unit-vector.js";
import { MAX_TIMER_MS } from "../model/index.js";

export interface OpenAIEmbedderConfig {
  /** e.g. "https://api.openai.com" or "http://127.0.0.1:11434/v1". */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` when set. */
  apiKey?: string;
  model: string;
  /** The model's output dimension; responses of any other length are rejected. */
  dim: number;
  /** Per request. Default 30 000. */
  timeoutMs?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Requests that may wait for a slot; one more answers unavailable. Default 32. */
  queue?: number;
}

export const DEFAULT_OPENAI_TIMEOUT_MS = 30_000;
const DEFAULT_BATCH_SIZE = 64;
export const DEFAULT_OPENAI_CONCURRENCY = 4;
const DEFAULT_QUEUE = 32;
/** Provider statuses that mean "not now" rather than "never": answered as unavailable. */
const BUSY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** Node timers (and so AbortSignal.timeout) clamp anything longer to 1 ms. */
export const MAX_OPENAI_TIMEOUT_MS = MAX_TIMER_MS;
const SOURCE = "openai-compatible embedder";

/**
 * `{base}/v1/embeddings`, without doubling a `/v1` the base already ends
 * with. A query string on the base is kept. Throws on a non-http(s) URL;
 * the message does not repeat the URL (it may carry credentials).
 */
export function embeddingsUrl(baseUrl: string): URL {
  return endpointUrl(baseUrl, "embeddings", "embeddings");
}

/**
 * An embedder for any OpenAI-compatible `POST /v1/embeddings` endpoint
 * (OpenAI, Ollama, llama.cpp, vLLM, LM Studio, …).
 *
 * Error messages name the endpoint (origin and path only), the HTTP status
 * and the provider's short error code, never the input texts, the API key
 * or the provider's free-text error message (which may quote the input).
 *
 * An endpoint that cannot be reached, times out, or answers 429/502/503/504
 * is `unavailable` (UnavailableError, CLI exit 5), with the cause class
 * (ECONNREFUSED, timeout, HTTP 503) kept for the server log only. At most
 * `concurrency` requests run at once behind a bounded queue.
 */
export class OpenAIEmbedder implements Embedder {
  readonly identity: EmbedderIdentity;
  private readonly url: URL;
  private readonly where: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  private readonly admission: Admission;

  constructor(config: OpenAIEmbedderConfig) {
    if (config.model.length === 0) throw new TypeError("model must be non-empty");
    if (!Number.isInteger(config.dim) || config.dim < 1) throw new RangeError("dim must be a positive integer");
    this.timeoutMs = config.timeoutMs ?? DEFAULT_OPENAI_TIMEOUT_MS;
    if (!Number.isInteger(this.timeoutMs) || this.timeoutMs < 1 || this.timeoutMs > MAX_OPENAI_TIMEOUT_MS) {
      throw new RangeError(`timeoutMs must be an integer from 1 to ${MAX_OPENAI_TIMEOUT_MS}`);
    }
    this.batchSize = config.batchSize ?? DEFAULT_BATCH_SIZE;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) {
      throw new RangeError("batchSize must be a positive integer");
    }
    this.admission = new Admission(config.concurrency ?? DEFAULT_OPENAI_CONCURRENCY, config.queue ?? DEFAULT_QUEUE);
    this.url = embeddingsUrl(config.baseUrl);
    this.where = endpointName(this.url);
    this.apiKey = config.apiKey === "" ? undefined : config.apiKey;
    this.identity = Object.freeze({ provider: "openai", model: config.model, dim: config.dim });
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const batch of chunks(texts, this.batchSize)) {
      out.push(...(await this.request(batch)));
    }
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [vec] = await this.request([text]);
    return vec as Float32Array;
  }

  private request(texts: string[]): Promise<Float32Array[]> {
    return this.admission.run(() => this.send(texts));
  }

  private async send(texts: string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (this.apiKey !== undefined) headers["authorization"] = `Bearer ${this.apiKey}`;
    // Most providers reject an empty string; a single space is the closest neutral input.
    const body = JSON.stringify({ model: this.identity.model, input: texts.map((t) => (t.length === 0 ? " " : t)) });

    let payload: unknown;
    try {
      const res = await fetch(this.url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) {
        const code = await providerErrorCode(res);
        const busy = BUSY_STATUSES.has(res.status)
          ? { reason: res.status === 429 ? "embedder_at_capacity" : "embedder_unreachable", cause: `HTTP ${res.status}` } as const
          : undefined;
        throw new EmbedderError(
          `${SOURCE}: ${this.where} failed with HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}` +
            (code ? ` (${code})` : ""),
          busy,
        );
      }
      const raw = await res.text();
      try {
        payload = JSON.parse(raw);
      } catch {
        throw new EmbedderError(`${SOURCE}: ${this.where} returned a body that is not JSON`);
      }
    } catch (err) {
      throw this.transportError(err);
    }
    return this.parse(payload, texts.length);
  }

  private transportError(err: unknown): EmbedderError {
    if (err instanceof EmbedderError) return err;
    const cause = transportCause(err);
    if (cause.timeout) {
      return new EmbedderError(`${SOURCE}: ${this.where} timed out after ${this.timeoutMs} ms`, {
        reason: "embedder_timed_out",
        cause: "timeout",
      });
    }
    const code = cause.code;
    return new EmbedderError(`${SOURCE}: ${this.where} could not be reached${code ? ` (${code})` : ""}`, {
      reason: "embedder_unreachable",
      cause: code ?? "network error",
    });
  }

  private parse(payload: unknown, count: number): Float32Array[] {
    const data = (payload as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) {
      throw new EmbedderError(`${SOURCE}: ${this.where} response has no "data" array`);
    }
    if (data.length !== count) {
      throw new EmbedderError(`${SOURCE}: ${this.where} returned ${data.length} embeddings for ${count} inputs`);
    }
    // Order by `index`; a server that omits it on every item is taken in array order.
    const indexed = data.every((d) => typeof (d as { index?: unknown })?.index === "number");
    const slots: (Float32Array | undefined)[] = new Array(count).fill(undefined);
    data.forEach((item: unknown, pos) => {
      const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      const at = indexed ? (index as number) : pos;
      if (!Number.isInteger(at) || at < 0 || at >= count || slots[at] !== undefined) {
        throw new EmbedderError(`${SOURCE}: ${this.where} returned an invalid or duplicate embedding index`);
      }
      if (!Array.isArray(embedding)) {
        throw new EmbedderError(`${SOURCE}: ${this.where} returned an embedding that is not a number array`);
      }
      if (embedding.length !== this.identity.dim) {
        throw new EmbedderError(
          `${SOURCE}: model "${this.identity.model}" returned ${embedding.length}-dimensional vectors ` +
            `but the configured dimension is ${this.identity.dim}; set ENGRAM_EMBED_DIM to the model's output size`,
        );
      }
      slots[at] = toUnitVector(embedding as number[], this.identity.dim, SOURCE);
    });
    return slots as Float32Array[];
  }
}
