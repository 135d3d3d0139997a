import { Code, ConnectError } from "@connectrpc/connect";
import { StoreFaultError, type StoreFault } from "../store-fault.js";

/**
 * What a failed Qdrant call means to a caller, in the outcomes of the
 * store-fault mapping the embedded store uses: the store cannot take the
 * request now (`unavailable`, exit 5) or it did not answer in time
 * (`deadline_exceeded`, exit 6). The cause is a short class (ECONNREFUSED,
 * http_500, timeout), never Qdrant's own text, which may name a collection
 * or echo a value.
 *
 * Only the recognising is Qdrant's own: an `unavailable` fault is a
 * StoreFault of the one store-fault mapping (src/store/store-fault.ts), so
 * it reads exactly as the embedded store's full disk does on every lane.
 */
export type QdrantFault =
  | Extract<StoreFault, { outcome: "unavailable" }>
  | { readonly outcome: "deadline_exceeded"; readonly cause: string };

export type QdrantAccess = "read" | "write";

const CONNECTION_CODES = ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_SOCKET", "UND_ERR_CLOSED"];
const TIMEOUT_CODES = ["ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"];

function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** Qdrant's error text, for classification only: it never leaves this function. */
function serverText(err: unknown): string {
  const data = (err as { data?: { status?: { error?: unknown } } }).data;
  const text = data?.status?.error;
  return typeof text === "string" ? text : "";
}

/** Classifies a thrown client error; undefined when it is not a fault of the store (a bug, a 4xx engram caused). */
export function qdrantFaultOf(err: unknown, access: QdrantAccess): QdrantFault | undefined {
  const reason = access === "write" ? "store_cannot_write" : "store_cannot_read";
  const name = (err as { name?: unknown } | null)?.name;
  if (name === "QdrantClientTimeoutError" || name === "TimeoutError") return { outcome: "deadline_exceeded", cause: "timeout" };
  if (name === "QdrantClientResourceExhaustedError") return { outcome: "unavailable", reason, cause: "http_429" };
  const status = (err as { status?: unknown }).status;
  if (typeof status === "number") {
    if (status === 429) return { outcome: "unavailable", reason, cause: "http_429" };
    if (status === 408 || status === 504) return { outcome: "deadline_exceeded", cause: `http_${status}` };
    const text = serverText(err);
    if (/no space left|disk space/i.test(text)) return { outcome: "unavailable", reason: "store_cannot_write", cause: "out_of_disk" };
    if (status === 403 && /read-only|read only/i.test(text)) return { outcome: "unavailable", reason: "store_cannot_write", cause: "read_only" };
    if (status >= 500) return { outcome: "unavailable", reason, cause: `http_${status}` };
    return undefined;
  }
  const code = networkCode(err);
  if (code && TIMEOUT_CODES.includes(code)) return { outcome: "deadline_exceeded", cause: code };
  if (code && CONNECTION_CODES.includes(code)) return { outcome: "unavailable", reason, cause: code };
  if (err instanceof TypeError && err.message === "fetch failed") return { outcome: "unavailable", reason, cause: "fetch_failed" };
  return undefined;
}

/** An `unavailable` store fault, the shared StoreFaultError with its fixed wire text. */
export class QdrantUnavailableError extends StoreFaultError {
  constructor(fault: Extract<QdrantFault, { outcome: "unavailable" }>) {
    super(fault, false);
  }
}

/** The fixed text of a store timeout: `deadline_exceeded`, nothing of Qdrant's. */
export const STORE_DEADLINE_TEXT = "the store did not answer in time";

/** The error a caller sees for a classified fault; the original is kept only as `cause` for the server log. */
export function faultError(fault: QdrantFault): Error {
  if (fault.outcome === "deadline_exceeded") return new ConnectError(STORE_DEADLINE_TEXT, Code.DeadlineExceeded);
  return new QdrantUnavailableError(fault);
}

/** Maps a client error through the fault classification; anything else passes through untouched. */
export function mapQdrantError(err: unknown, access: QdrantAccess): unknown {
  const fault = qdrantFaultOf(err, access);
  return fault ? faultError(fault) : err;
}
