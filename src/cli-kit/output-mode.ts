/** `--output`: one JSON document for scripts, or text for reading. */
export type OutputMode = "json" | "text";
