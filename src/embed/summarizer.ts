/**
 * Writes a record's one-line recall summary. The one implementation is
 * ChatSummarizer (an OpenAI-compatible chat-completions endpoint); tests
 * swap in their own.
 */
export interface Summarizer {
  /** The model name stamped on every summary it writes (`summary_model`). */
  readonly model: string;
  /**
   * One line of at most `maxChars` characters. Rejects with a
   * SummarizerError that names the endpoint and the cause, never the text.
   */
  summarize(content: string, maxChars: number, signal?: AbortSignal): Promise<string>;
}

/** A summary that could not be made; the message never holds the content, a key or the provider's free text. */
export class SummarizerError extends Error {
  override readonly name = "SummarizerError";
}

/**
 * What the model answered, as one line: every run of whitespace (newlines
 * included) becomes one space, surrounding quotes go, and a line longer
 * than `maxChars` characters (code points, never a split pair) is cut to
 * `maxChars - 1` and ended with `…`.
 */
export function oneLine(text: string, maxChars: number): string {
  let line = text.replace(/\s+/gu, " ").trim();
  if (line.length >= 2 && /^["'“].*["'”]$/u.test(line)) line = line.slice(1, -1).trim();
  const chars = [...line];
  if (chars.length <= maxChars) return line;
  return chars.slice(0, Math.max(0, maxChars - 1)).join("").trimEnd() + "…";
}
