import { ArgError, argError } from "./arg-error.js";

/**
 * The pseudo-field of a rejection about the request as a whole: a body that
 * does not decode, or one over the request byte limit. Like `response`, it
 * names no field of any schema.
 */
export const REQUEST_FIELD = "request";

/**
 * `field=request hint=too_long`. The hint says what to do (send less); the
 * class is Malformed, so the code is `invalid_argument`. The hint's own
 * class (OutOfRange) is for one field over its byte bound, and a body over
 * the listener's limit is not that: the caller cannot tell which field to
 * shorten, and `resource_exhausted` is taken by response_too_large (exit 10).
 * `got` is a count the server measured, never a byte of the body; when the
 * server stopped reading early it is a lower bound.
 */
export function requestTooLarge(got: number, max: number): ArgError {
  return new ArgError([REQUEST_FIELD], "too_long", `request too large: ${got} bytes (max ${max})`, { got, max }, "malformed");
}

/** A body that is not a message of the method's input type at all (or a framing we cannot read). */
export function requestNotDecodable(typeName: string): ArgError {
  return argError(REQUEST_FIELD, "format", `the body is not a valid ${typeName}`);
}

/** The content encodings a request body may use. */
export const REQUEST_ENCODINGS = ["identity", "gzip", "br"] as const;

/** An encoding header naming something the server cannot decompress; the header's value is not repeated. */
export function requestEncodingUnsupported(): ArgError {
  return argError(REQUEST_FIELD, "enum", `the request encoding must be one of ${REQUEST_ENCODINGS.join("|")}`);
}

/** A timeout header the server cannot read; its value is not repeated. */
export function requestTimeoutMalformed(header: string): ArgError {
  return argError(REQUEST_FIELD, "format", `the ${header} header must be a valid timeout`);
}

/**
 * One field of the body has the wrong shape for its declared type. `detail`
 * is derived from the schema (the field's type), never from the value.
 */
export function fieldNotDecodable(field: string, hint: "format" | "enum", detail: string): ArgError {
  return argError(field, hint, detail);
}

/** The largest number a uint64 field can carry on any wire. */
export const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A whole number no uint64 holds, sent in JSON (the one encoding that can
 * carry it) to a uint64 field the core puts no lower cap on (`offset`). The
 * wire's maximum is that field's cap, so it reads as the count knobs' cap
 * sentence does. The bound stays out of `bounds`: they are doubles, and a
 * double cannot hold this one exactly.
 */
export function uint64Exceeded(field: string): ArgError {
  return exceedsMaximum(field, UINT64_MAX);
}

/**
 * The cap sentence of every count and batch: `<field> exceeds the maximum of <max>`.
 * A cap a double holds exactly also goes out as the `max` bound.
 */
export function exceedsMaximum(field: string, max: number | bigint): ArgError {
  const detail = `${field} exceeds the maximum of ${max}`;
  return typeof max === "number" ? argError(field, "out_of_range", detail, { max }) : argError(field, "out_of_range", detail);
}
