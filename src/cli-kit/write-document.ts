import type { OutputMode } from "./output-mode.js";

/** Writes the run's one stdout document. */
export function writeDocument(mode: OutputMode, doc: unknown, text: () => string): void {
  if (mode === "json") {
    process.stdout.write(JSON.stringify(doc, null, 2) + "\n");
    return;
  }
  const body = text();
  process.stdout.write(body.endsWith("\n") ? body : body + "\n");
}
