import { argError, exceedsMaximum } from "../argerror/index.js";
import { byteLength } from "./bytes.js";
import type { Limits } from "./limits.js";

/** Archive and restore reject a whole call only for a malformed batch. */
export function checkBatchIds(ids: readonly string[] | undefined, limits: Limits): readonly string[] {
  if (!ids || ids.length === 0) throw argError("ids", "required", "ids is required");
  if (ids.length > limits.maxRecall) {
    throw exceedsMaximum("ids", limits.maxRecall);
  }
  ids.forEach((id, i) => {
    if (id.trim() === "") throw argError("ids", "required", "ids entries must not be blank", { index: i });
    const n = byteLength(id);
    if (n > limits.maxArchiveIdBytes) {
      throw argError("ids", "too_long", `ids[${i}] too large: ${n} bytes (max ${limits.maxArchiveIdBytes})`, {
        index: i,
        max: limits.maxArchiveIdBytes,
        got: n,
      });
    }
  });
  return ids;
}
