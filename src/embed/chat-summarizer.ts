import { endpointName, endpointUrl, providerErrorCode, readBoundedText, ResponseTooLargeError, transportCause } from "./openai-endpoint.js";
import { oneLine, SummarizerError, type Summarizer } from "./summarizer.js";

export type ChatSummarizerConfig = {
  /** e.g. "https://api.openai.com" or "http://127.0.0.1:11434/v1". */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` when set. */
  apiKey?: string;
  model: string;
  /** `max_tokens` of each request; 0 leaves it to the provider. */
  maxTokens: number;
  /** Per request. */
  timeoutMs: number;
  /** The most of a response body that is read; a longer one is a failure. */
  maxResponseBytes: number;
};

export const DEFAULT_SUMMARY_MAX_TOKENS = 1024;
export const DEFAULT_SUMMARY_RESPONSE_BYTES = 256 * 1024;
const SOURCE = "openai-compatible summarizer";

/** A signal that fires with either of two (AbortSignal.any is newer than the Node 20 floor). */
function either(a: AbortSignal, b: AbortSignal | undefined): { signal: AbortSignal; done(): void } {
  if (b === undefined) return { signal: a, done: () => undefined };
  const both = new AbortController();
  const fire = () => both.abort();
  if (a.aborted || b.aborted) fire();
  a.addEventListener("abort", fire, { once: true });
  b.addEventListener("abort", fire, { once: true });
  return {
    signal: both.signal,
    done: () => {
      a.removeEventListener("abort", fire);
      b.removeEventListener("abort", fire);
    },
  };
}

/** What the model is told; the record's content goes in the user message alone. */
function instruction(maxChars: number): string {
  return (
    `Summarize the note the user sends in one line of at most ${maxChars} characters, ` +
    "for someone deciding whether to read it in full. Answer with the summary only: no preamble, no quotes, no line breaks."
  );
}

/**
 * A summarizer for any OpenAI-compatible `POST /v1/chat/completions`
 * endpoint. The record's content is the only record field sent, with the
 * model name and the instruction. Messages name the endpoint (origin and
 * path), the HTTP status and the provider's short error code, never the
 * content, the key or the provider's free text.
 */
export class ChatSummarizer implements Summarizer {
  readonly model: string;
  private readonly url: URL;
  private readonly where: string;
  private readonly apiKey: string | undefined;

  constructor(private readonly config: ChatSummarizerConfig) {
    if (config.model.length === 0) throw new TypeError("model must be non-empty");
    this.model = config.model;
    this.url = endpointUrl(config.baseUrl, "chat/completions", "chat");
    this.where = endpointName(this.url);
    this.apiKey = config.apiKey === "" ? undefined : config.apiKey;
  }

  async summarize(content: string, maxChars: number, signal?: AbortSignal): Promise<string> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (this.apiKey !== undefined) headers["authorization"] = `Bearer ${this.apiKey}`;
    const request: Record<string, unknown> = {
      model: this.model,
      messages: [
        { role: "system", content: instruction(maxChars) },
        { role: "user", content },
      ],
    };
    if (this.config.maxTokens > 0) request.max_tokens = this.config.maxTokens;
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const abort = either(timeout, signal);
    let raw: string;
    try {
      const res = await fetch(this.url, {
        method: "POST",
        headers,
        body: JSON.stringify(request),
        signal: abort.signal,
      });
      if (!res.ok) {
        const code = await providerErrorCode(res);
        throw new SummarizerError(`${SOURCE}: ${this.where} failed with HTTP ${res.status}${code ? ` (${code})` : ""}`);
      }
      raw = await readBoundedText(res, this.config.maxResponseBytes);
    } catch (err) {
      throw this.transportError(err, timeout.aborted);
    } finally {
      abort.done();
    }
    return this.parse(raw, maxChars);
  }

  private transportError(err: unknown, timedOut: boolean): SummarizerError {
    if (err instanceof SummarizerError) return err;
    if (err instanceof ResponseTooLargeError) return new SummarizerError(`${SOURCE}: ${this.where} answered with more than ${this.config.maxResponseBytes} bytes`);
    const cause = transportCause(err);
    if (cause.timeout) {
      return new SummarizerError(timedOut ? `${SOURCE}: ${this.where} timed out after ${this.config.timeoutMs} ms` : `${SOURCE}: ${this.where} was cancelled`);
    }
    return new SummarizerError(`${SOURCE}: ${this.where} could not be reached${cause.code ? ` (${cause.code})` : ""}`);
  }

  private parse(raw: string, maxChars: number): string {
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      throw new SummarizerError(`${SOURCE}: ${this.where} returned a body that is not JSON`);
    }
    const choices = (payload as { choices?: unknown } | null)?.choices;
    const first = Array.isArray(choices) ? (choices[0] as { message?: { content?: unknown } } | undefined) : undefined;
    const text = first?.message?.content;
    if (typeof text !== "string") throw new SummarizerError(`${SOURCE}: ${this.where} response has no choices[0].message.content string`);
    const line = oneLine(text, maxChars);
    if (line === "") throw new SummarizerError(`${SOURCE}: ${this.where} answered with an empty summary`);
    return line;
  }
}
