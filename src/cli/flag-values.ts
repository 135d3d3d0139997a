import { create } from "@bufbuild/protobuf";
import { TimestampSchema, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { usageError } from "../cli-kit/index.js";
import { checkArgKinds } from "../core/arg-kinds.js";
import { parseRfc3339Instant } from "../core/rfc3339.js";
import { CitationSchema, type Citation } from "../gen/engram/v1/engram_pb.js";

/**
 * A --citation is JSON the caller typed, exactly what an MCP agent sends as
 * a citations entry, so it is checked by the core's own citation check: the
 * same envelopes, word for word, for an unknown key or a key that is not a
 * string. Text that is not JSON at all is, like any non-object, "must be an
 * object". Nothing the caller typed is repeated.
 */
export function parseCitations(raw: readonly string[] | undefined): Citation[] {
  const values = (raw ?? []).map((text): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  });
  try {
    checkArgKinds({ citations: "citations" }, { citations: values });
  } catch (err) {
    throw usageError((err as Error).message);
  }
  return values.map((v) => create(CitationSchema, v as Partial<Pick<Citation, "kind" | "ref" | "locator" | "pin" | "excerpt">>));
}

/**
 * The wire carries a Timestamp, so the flag's text must become an instant
 * here; the core's own parser does it, and its envelope is what a bad value
 * prints.
 */
function instantOf(field: string, text: string) {
  try {
    const t = parseRfc3339Instant(field, text);
    return t === undefined ? undefined : { ...timestampFromDate(new Date(t.seconds * 1000)), nanos: t.nanos };
  } catch (err) {
    throw usageError((err as Error).message);
  }
}

/**
 * The message-typed request fields a flag can fill, by the message's type:
 * the value the flag's help names, and how the flag's text (or, for a
 * repeated field, its list of texts) becomes the field.
 */
export const FLAG_VALUE_OF_MESSAGE: Readonly<Record<string, { readonly placeholder: string; readonly value: (field: string, text: unknown) => unknown }>> = {
  [TimestampSchema.typeName]: { placeholder: "rfc3339", value: (field, text) => instantOf(field, text as string) },
  [CitationSchema.typeName]: { placeholder: "json", value: (_field, texts) => parseCitations(texts as string[]) },
};
