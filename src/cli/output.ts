import type { OutputMode } from "../cli-kit/index.js";
import { toJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";

/**
 * Writes the one stdout document of a run. JSON is the proto JSON of the
 * response with proto (snake_case) field names and every implicit field
 * present, so an empty result still reads `"memories": []` and a script
 * never has to guess whether a key is missing or zero.
 */
export function emit<Desc extends DescMessage>(
  mode: OutputMode,
  schema: Desc,
  message: MessageShape<Desc>,
  text: () => string,
): void {
  if (mode === "json") {
    const doc = toJson(schema, message, { alwaysEmitImplicit: true, useProtoFieldName: true });
    process.stdout.write(JSON.stringify(doc, null, 2) + "\n");
    return;
  }
  const body = text();
  process.stdout.write(body.endsWith("\n") ? body : body + "\n");
}
