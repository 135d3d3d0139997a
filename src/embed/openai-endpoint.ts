/**
 * What the OpenAI-compatible clients (the embedder and the summarizer)
 * share: where a request goes, what of a provider's error may be repeated,
 * how a transport failure is named, and a response read that stops at a
 * byte budget. None of it ever repeats a base URL (it may carry
 * credentials), an API key, an input text or a provider's free-text message.
 */

/**
 * `{base}/v1/{leaf}`, without doubling a `/v1` the base already ends with.
 * A query string on the base is kept. Throws on a non-http(s) URL, naming
 * `what` and never the URL.
 */
export function endpointUrl(baseUrl: string, leaf: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`the ${what} base URL is not a valid absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`the ${what} base URL must use http or https`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = /\/v1$/.test(path) ? `${path}/${leaf}` : `${path}/v1/${leaf}`;
  url.hash = "";
  return url;
}

/** `POST origin/path`: how messages name an endpoint (no query, no credentials). */
export function endpointName(url: URL): string {
  return `POST ${url.origin}${url.pathname}`;
}

/**
 * The provider's machine-readable error code, if the body is an OpenAI-style
 * `{ error: { code | type } }`. Only short identifier-like strings pass: the
 * free-text `message` is dropped because providers sometimes quote the input.
 */
export async function providerErrorCode(res: Response, maxBytes = 64 * 1024): Promise<string | undefined> {
  let body: unknown;
  try {
    body = JSON.parse(await readBoundedText(res, maxBytes));
  } catch {
    return undefined;
  }
  const error = (body as { error?: unknown } | null)?.error;
  if (error === null || typeof error !== "object") return undefined;
  const { code, type } = error as { code?: unknown; type?: unknown };
  for (const c of [code, type]) {
    if (typeof c === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(c)) return c;
  }
  return undefined;
}

/** A response body past the reader's byte budget; the rest is not read. */
export class ResponseTooLargeError extends Error {
  override readonly name = "ResponseTooLargeError";
}

/**
 * The body as UTF-8 text, read chunk by chunk and abandoned (the stream
 * cancelled) as soon as it passes `maxBytes`, so a provider that answers
 * with an endless body costs at most the budget.
 */
export async function readBoundedText(res: Response, maxBytes: number): Promise<string> {
  if (res.body === null) return "";
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(`the response is larger than ${maxBytes} bytes`);
  }
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(`the response is larger than ${maxBytes} bytes`);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString("utf8");
}

/**
 * Why a request never got an answer: a timeout, or the system error code
 * of a network failure (ECONNREFUSED, ENOTFOUND, …). fetch() reports those
 * as TypeError("fetch failed") with the system error as its cause; only a
 * code of that shape is kept, as the cause's message may carry the address.
 */
export function transportCause(err: unknown): { timeout: true } | { timeout: false; code?: string } {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return { timeout: true };
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === "string" && /^[A-Z0-9_]{1,40}$/.test(cause.code) ? cause.code : undefined;
  return code === undefined ? { timeout: false } : { timeout: false, code };
}
