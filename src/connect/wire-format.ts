import type { HandlerContext } from "@connectrpc/connect";
import { parseContentType as connectContentType } from "@connectrpc/connect/protocol-connect";
import { parseContentType as grpcContentType } from "@connectrpc/connect/protocol-grpc";
import { parseContentType as grpcWebContentType } from "@connectrpc/connect/protocol-grpc-web";

/**
 * Whether the library will answer this request in protobuf's binary format,
 * read from the request exactly as the library's own protocol handlers read
 * it. Anything it cannot tell (a GET, whose encoding is in the query, or a
 * protocol it does not know) is "no": the caller then answers with a plain
 * message, which is right in either format.
 */
export function answersInBinary(ctx: HandlerContext): boolean {
  if (ctx.requestMethod !== "POST") return false;
  const type = ctx.requestHeader.get("content-type");
  switch (ctx.protocolName) {
    case "connect":
      return connectContentType(type)?.binary === true;
    case "grpc":
      return grpcContentType(type)?.binary === true;
    case "grpc-web":
      return grpcWebContentType(type)?.binary === true;
    default:
      return false;
  }
}
