/**
 * The library decodes each request body, once. engram's words for a body
 * that does not decode (decode-diagnosis.ts) are looked for only after the
 * library's own decode has refused it (decode-watch.ts tells): the call is
 * then answered anew with the envelope, or, when the diagnosis reads the
 * body as MCP reads the same arguments (a key sent twice, a count past
 * uint64, a batch whose bad records are refused apart), handed to the
 * library again as the diagnosis rewrote it. The method never ran on the
 * refused attempt, so nothing happens twice.
 */
import type { JsonReadOptions, JsonValue } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { createAsyncIterable, type UniversalHandler, type UniversalServerRequest, type UniversalServerResponse } from "@connectrpc/connect/protocol";
import { requestNotDecodable, type ArgError } from "../argerror/index.js";
import { checkRequest, readsLeniently, spelledStrictly, type Checked } from "./decode-diagnosis.js";
import { watchDecode } from "./decode-watch.js";
import { noteOutcome } from "./outcome-context.js";
import { noteRefusedRecords } from "./records-apart.js";
import { frame } from "./request-body.js";

/**
 * The library's JSON reading: unknown keys (and unknown enum names) refused
 * rather than dropped, so a body with one fails the decode and reaches the
 * diagnosis, which names it (unknown-fields.ts); malformed UTF-8 refused
 * rather than read as U+FFFD. connect-es reads a JSON body through this
 * decoder (its JSON serialization's `textDecoder`).
 */
export const LIBRARY_JSON_OPTIONS: Partial<JsonReadOptions> & { textDecoder: TextDecoder } = {
  ignoreUnknownFields: false,
  textDecoder: new TextDecoder("utf-8", { fatal: true }),
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The one message of a unary call, as the gate read it. */
export type OneMessage = {
  /** Unframed and decompressed. */
  bytes: Uint8Array;
  binary: boolean;
  /**
   * gRPC and gRPC-Web only: why the body cannot end as it does (more after
   * the message, over the limit), or undefined. Asked only once the library
   * has decoded the message and wants the end of the body, so a message that
   * does not decode is answered without waiting for the caller to finish.
   */
  rest?: () => Promise<ConnectError | undefined>;
};

export type DecodeCall = {
  inner: UniversalHandler;
  req: UniversalServerRequest & { contextValues: NonNullable<UniversalServerRequest["contextValues"]> };
  /** The request headers to pass on with a body of `length` bytes (undefined: framed or parsed, no length). */
  header: (length: number | undefined) => Headers;
  /** Answers the call with `err` in the caller's protocol. */
  refuse: (err: ConnectError) => Promise<UniversalServerResponse>;
  envelope: (e: ArgError) => ConnectError;
};

export async function decodeOnce(call: DecodeCall, msg: OneMessage): Promise<UniversalServerResponse> {
  const { inner, req } = call;
  const input = inner.method.input;
  const values = req.contextValues;
  let bodyRefusal: ConnectError | undefined;

  /** Hands the library one body; undefined when its decode refused it. */
  const attempt = async (body: Uint8Array | JsonValue): Promise<UniversalServerResponse | undefined> => {
    const watch = watchDecode(values);
    let res: UniversalServerResponse;
    if (msg.rest !== undefined) {
      res = await inner({ ...req, header: call.header(undefined), body: framedBody(body as Uint8Array, msg.rest, (e) => (bodyRefusal = e)) });
    } else if (body instanceof Uint8Array) {
      res = await inner({ ...req, header: call.header(body.length), body: createAsyncIterable([body]) });
    } else {
      res = await inner({ ...req, header: call.header(undefined), body });
    }
    if (bodyRefusal !== undefined) {
      // The library answered the gate's own refusal, thrown from the body.
      noteOutcome(values, bodyRefusal);
      return res;
    }
    return watch.reached ? res : undefined;
  };

  const diagnose = async (): Promise<UniversalServerResponse> => {
    let checked: Checked;
    try {
      checked = checkRequest(input, msg.bytes, msg.binary, inner.method.name);
    } catch (err) {
      return call.refuse(err instanceof ConnectError ? err : call.envelope(err as ArgError));
    }
    if (checked.refusedRecords !== undefined) noteRefusedRecords(values, checked.refusedRecords);
    return (await attempt(checked.bytes)) ?? call.refuse(call.envelope(requestNotDecodable(input.typeName)));
  };

  let body: Uint8Array | JsonValue = msg.bytes;
  if (!msg.binary && readsLeniently(input)) {
    // Why this input is parsed here: the library accepts some spellings of a
    // count or a timestamp the core refuses ("0x10", February 30) and keeps
    // only the value, so no hook after its decode can see them. A Connect
    // body is then handed on parsed (the library takes a JSON value as a
    // unary body), so its text is still parsed once; a gRPC frame can only
    // carry bytes.
    const json = parseStrict(msg.bytes);
    if (json === undefined || !spelledStrictly(input, json)) return diagnose();
    if (msg.rest === undefined) body = json;
  }
  return (await attempt(body)) ?? diagnose();
}

function parseStrict(bytes: Uint8Array): JsonValue | undefined {
  try {
    return JSON.parse(strictUtf8.decode(bytes)) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * The message as one frame, then the end of the body once the library asks
 * for it: a unary call reads past its message to be sure nothing follows.
 */
function framedBody(message: Uint8Array, rest: () => Promise<ConnectError | undefined>, refused: (e: ConnectError) => void): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => {
      let sent = false;
      return {
        next: async (): Promise<IteratorResult<Uint8Array>> => {
          if (!sent) {
            sent = true;
            return { done: false, value: frame(message) };
          }
          const err = await rest();
          if (err !== undefined) {
            refused(err);
            throw err;
          }
          return { done: true, value: undefined };
        },
      };
    },
  };
}
