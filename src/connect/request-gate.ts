/**
 * Everything a request must pass before the Connect library decodes its
 * body: the bearer check, the byte limit (on the wire and after
 * decompression) and the framing. The library then decodes the one message,
 * once (decode-once.ts); engram's diagnosis runs only when that decode
 * refuses it.
 *
 * Every refusal reaches the caller through the library's own error path: the
 * gate hands it a body whose first read throws the ConnectError, and the
 * library renders that error in the caller's protocol (Connect JSON with its
 * HTTP status, gRPC trailers, gRPC-Web trailer frame). So a refusal looks
 * exactly like any other envelope, and nothing of the body is ever quoted.
 */
import type { Readable } from "node:stream";
import type { DescMessage } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { createAsyncIterable, type UniversalHandler, type UniversalServerRequest, type UniversalServerResponse } from "@connectrpc/connect/protocol";
import {
  REQUEST_ENCODINGS,
  requestEncodingUnsupported,
  requestNotDecodable,
  requestTimeoutMalformed,
  requestTooLarge,
  type ArgError,
} from "../argerror/index.js";
import type { Logger } from "../core/index.js";
import { decodeOnce, type OneMessage } from "./decode-once.js";
import { noteOutcome } from "./outcome-context.js";
import { toConnectError } from "./error-mapper.js";
import { BodyNotDecompressible, BodyTooLarge, firstFrameLength, inflateBounded, readBounded, splitFrames } from "./request-body.js";
import { csrfRefusal, resolvedSubject, unauthenticated } from "./subject-context.js";

type Wire = {
  /** gRPC and gRPC-Web carry length-prefixed frames; Connect unary a bare message. */
  framed: boolean;
  binary: boolean;
  encodingHeader: string;
  timeoutHeader: string;
  timeoutPattern: RegExp;
};

const CONNECT_UNARY = /^application\/(?:(json)(?:; ?charset=utf-?8)?|proto)$/i;
const GRPC = /^application\/grpc(?:-web)?(?:\+(?:(json)(?:; ?charset=utf-?8)?|proto))?$/i;

/** The protocols a unary method is served over; anything else the library refuses without reading. */
function wireOf(contentType: string | null): Wire | undefined {
  const ct = (contentType ?? "").trim();
  let m = CONNECT_UNARY.exec(ct);
  if (m) return { framed: false, binary: m[1] === undefined, encodingHeader: "content-encoding", timeoutHeader: "connect-timeout-ms", timeoutPattern: /^\d{1,10}$/ };
  m = GRPC.exec(ct);
  if (m) return { framed: true, binary: m[1] === undefined, encodingHeader: "grpc-encoding", timeoutHeader: "grpc-timeout", timeoutPattern: /^\d{1,8}[HMSmun]$/ };
  return undefined;
}

type Encoding = (typeof REQUEST_ENCODINGS)[number];

function isEncoding(v: string): v is Encoding {
  return (REQUEST_ENCODINGS as readonly string[]).includes(v);
}

function failingBody(err: ConnectError): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(err),
    }),
  };
}

/** The headers the library may act on before it reads the body are dropped once the gate has dealt with them. */
function forwardHeaders(req: UniversalServerRequest, wire: Wire | undefined, length: number | undefined): Headers {
  const h = new Headers(req.header);
  h.delete("content-length");
  if (wire) {
    h.delete(wire.encodingHeader);
  }
  if (length !== undefined) h.set("content-length", String(length));
  return h;
}

export type GateOptions = { maxRequestBytes: number; log: Logger };

/**
 * Wraps one method's universal handler. `node` is the Node request the
 * universal request was built from; the gate reads the body from it directly
 * so that stopping at the limit pauses the stream instead of destroying it
 * (which would take the response down with it).
 */
export function gateHandler(
  inner: UniversalHandler,
  opts: GateOptions,
): UniversalHandler & ((req: UniversalServerRequest, node: Readable) => Promise<UniversalServerResponse>) {
  const input: DescMessage = inner.method.input;
  const procedure = inner.method.name;
  const max = opts.maxRequestBytes;

  const refuse = (req: UniversalServerRequest, wire: Wire | undefined, err: ConnectError): Promise<UniversalServerResponse> => {
    const header = forwardHeaders(req, wire, undefined);
    // An unreadable timeout would be reported (value included) before the body is read.
    if (wire) header.delete(wire.timeoutHeader);
    noteOutcome(req.contextValues, err);
    return inner({ ...req, header, body: failingBody(err) });
  };
  const envelope = (e: ArgError): ConnectError => toConnectError(e, opts.log, procedure);

  const handle = async (req: UniversalServerRequest, node?: Readable): Promise<UniversalServerResponse> => {
    const wire = wireOf(req.header.get("content-type"));
    if (req.contextValues === undefined || resolvedSubject(req.contextValues) === undefined) return refuse(req, wire, unauthenticated(req.contextValues));
    const csrf = csrfRefusal(req.contextValues, procedure);
    if (csrf) return refuse(req, wire, csrf);
    if (!wire || req.method !== "POST" || node === undefined) {
      // The library answers 415 / 405 for these without reading a byte.
      return inner({ ...req, header: forwardHeaders(req, undefined, undefined), body: createAsyncIterable([]) });
    }
    const timeout = req.header.get(wire.timeoutHeader);
    if (timeout !== null && !wire.timeoutPattern.test(timeout.trim())) return refuse(req, wire, envelope(requestTimeoutMalformed(wire.timeoutHeader)));
    const encoding = (req.header.get(wire.encodingHeader) ?? "identity").trim().toLowerCase() || "identity";
    if (!isEncoding(encoding)) return refuse(req, wire, envelope(requestEncodingUnsupported()));
    const declared = Number(req.header.get("content-length") ?? NaN);
    if (Number.isSafeInteger(declared) && declared > max) return refuse(req, wire, envelope(requestTooLarge(declared, max)));

    // The gate's own refusals, in the envelope's words; what the library would say of them quotes the body.
    const refusalOf = (err: unknown): ConnectError => {
      if (err instanceof ConnectError) return err;
      if (err instanceof BodyTooLarge) return envelope(requestTooLarge(err.got, max));
      if (err instanceof BodyNotDecompressible) return envelope(requestNotDecodable(input.typeName));
      return envelope(err as ArgError);
    };

    let msg: OneMessage;
    try {
      if (wire.framed) {
        // Hand the first frame on as soon as it is complete: a bad one ends
        // the call at once instead of waiting for a client that never half-closes.
        const first = await readBounded(node, max, (sofar) => {
          const need = firstFrameLength(sofar);
          if (need !== undefined && need > max + 5) throw new BodyTooLarge(need);
          return need !== undefined && sofar.length >= need;
        });
        const need = firstFrameLength(first.data) ?? first.data.length;
        const bytes = await unframe(first.data.subarray(0, need), encoding, max, input);
        // A unary call has exactly one message: anything after it is refused.
        const restOf = async (): Promise<ConnectError | undefined> => {
          try {
            let rest = first.data.subarray(need);
            if (!first.ended) {
              const more = await readBounded(node, max - first.data.length).catch((e: unknown) => {
                throw e instanceof BodyTooLarge ? new BodyTooLarge(first.data.length + e.got) : e;
              });
              rest = Buffer.concat([rest, more.data]);
            }
            return rest.length > 0 ? refusalOf(requestNotDecodable(input.typeName)) : undefined;
          } catch (err) {
            return refusalOf(err);
          }
        };
        let restRead: Promise<ConnectError | undefined> | undefined;
        msg = { bytes, binary: wire.binary, rest: () => (restRead ??= restOf()) };
      } else {
        const raw = (await readBounded(node, max)).data;
        msg = { bytes: encoding === "identity" ? raw : await inflateBounded(raw, encoding, max), binary: wire.binary };
      }
    } catch (err) {
      return refuse(req, wire, refusalOf(err));
    }
    return decodeOnce(
      {
        inner,
        req: { ...req, contextValues: req.contextValues },
        header: (length) => forwardHeaders(req, wire, length),
        refuse: (err) => refuse(req, wire, err),
        envelope,
      },
      msg,
    );
  };
  return Object.assign(handle, {
    method: inner.method,
    service: inner.service,
    protocolNames: inner.protocolNames,
    allowedMethods: inner.allowedMethods,
    supportedContentType: inner.supportedContentType,
    requestPath: inner.requestPath,
  });
}

/** A unary call carries exactly one message frame; a compressed one needs an encoding to undo. */
async function unframe(raw: Uint8Array, encoding: Encoding, max: number, input: DescMessage): Promise<Uint8Array> {
  const frames = splitFrames(raw);
  if (frames === undefined || frames.length !== 1) throw requestNotDecodable(input.typeName);
  const { flags, data } = frames[0]!;
  if (flags === 0) return data;
  if (flags !== 1 || encoding === "identity") throw requestNotDecodable(input.typeName);
  return inflateBounded(data, encoding, max);
}
