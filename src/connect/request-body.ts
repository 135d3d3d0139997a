/**
 * Reading a request body without trusting it: never more than the limit is
 * buffered, on the wire or after decompression, and a body that stops
 * arriving is the listener's business (its deadline), not ours.
 */
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";

/** The body (or what it expands to) holds more than the limit; `got` is how far the server counted. */
export class BodyTooLarge extends Error {
  override readonly name = "BodyTooLarge";
  constructor(readonly got: number) {
    super("request body over the limit");
  }
}

/** The bytes are not a valid stream of the declared encoding. */
export class BodyNotDecompressible extends Error {
  override readonly name = "BodyNotDecompressible";
}

function aborted(): ConnectError {
  return new ConnectError("the request was aborted", Code.Canceled);
}

/**
 * Collects the body up to `max` bytes. Past the limit it stops listening and
 * pauses the stream, so the rest stays in the socket (backpressure) instead of
 * memory; the listener then ends the exchange. `enough` may stop the read
 * early (the stream is paused, `ended` is false) once what has arrived can be
 * judged, such as a complete first gRPC frame.
 */
export function readBounded(
  req: Readable,
  max: number,
  enough?: (sofar: Buffer) => boolean,
): Promise<{ data: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    const stop = (): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer): void => {
      n += chunk.length;
      if (n > max) {
        stop();
        req.pause();
        reject(new BodyTooLarge(n));
        return;
      }
      chunks.push(chunk);
      if (enough) {
        const sofar = Buffer.concat(chunks, n);
        chunks.length = 0;
        chunks.push(sofar);
        let judged: boolean;
        try {
          judged = enough(sofar);
        } catch (err) {
          stop();
          req.pause();
          reject(err);
          return;
        }
        if (judged) {
          stop();
          req.pause();
          resolve({ data: sofar, ended: false });
        }
      }
    };
    const onEnd = (): void => {
      stop();
      resolve({ data: Buffer.concat(chunks, n), ended: true });
    };
    const onError = (): void => {
      stop();
      reject(aborted());
    };
    const onClose = (): void => {
      stop();
      reject(aborted());
    };
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onError);
    req.once("close", onClose);
    req.resume();
  });
}

/** Bytes the first frame of a gRPC body needs, once its prefix has arrived. */
export function firstFrameLength(sofar: Uint8Array): number | undefined {
  if (sofar.length < 5) return undefined;
  return 5 + new DataView(sofar.buffer, sofar.byteOffset, sofar.byteLength).getUint32(1);
}

/**
 * Decompresses `data` and stops as soon as the output passes `max`, so a
 * small body that expands without bound costs at most the limit plus one
 * zlib chunk.
 */
export function inflateBounded(data: Uint8Array, encoding: "gzip" | "br", max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const z = encoding === "gzip" ? zlib.createGunzip() : zlib.createBrotliDecompress();
    const chunks: Buffer[] = [];
    let n = 0;
    let settled = false;
    z.on("data", (chunk: Buffer) => {
      if (settled) return;
      n += chunk.length;
      if (n > max) {
        settled = true;
        z.destroy();
        reject(new BodyTooLarge(n));
        return;
      }
      chunks.push(chunk);
    });
    z.once("end", () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, n));
    });
    z.once("error", () => {
      if (settled) return;
      settled = true;
      reject(new BodyNotDecompressible("the body is not valid for its encoding"));
    });
    z.end(data);
  });
}

export type Frame = { flags: number; data: Uint8Array };

/** Splits a gRPC / gRPC-Web body into length-prefixed frames; undefined when the framing is broken. */
export function splitFrames(body: Uint8Array): Frame[] | undefined {
  const frames: Frame[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 0;
  while (at < body.length) {
    if (body.length - at < 5) return undefined;
    const flags = body[at]!;
    const len = view.getUint32(at + 1);
    if (body.length - at - 5 < len) return undefined;
    frames.push({ flags, data: body.subarray(at + 5, at + 5 + len) });
    at += 5 + len;
  }
  return frames;
}

/** One uncompressed frame around `data`. */
export function frame(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + data.length);
  new DataView(out.buffer).setUint32(1, data.length);
  out.set(data, 5);
  return out;
}
