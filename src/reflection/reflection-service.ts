/**
 * gRPC server reflection, v1 and v1alpha (the same messages under two
 * package names; older clients ask only v1alpha), so grpcurl and `buf curl`
 * can list and call the service without a local copy of the protos.
 */
import { create, type DescFile } from "@bufbuild/protobuf";
import { Code, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { file_engram_v1_engram } from "../gen/engram/v1/engram_pb.js";
import { file_google_rpc_error_details } from "../gen/google/rpc/error_details_pb.js";
import * as v1 from "../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { DescriptorIndex } from "./descriptor-index.js";

/** The request as both versions decode it. */
type AnyRequest = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;

/** A response body before it is made a message of one version. */
type Answer =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

/** Fixed texts: a reflection error never repeats the name it was asked about. */
const notFound = (what: string): Answer => ({ case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage: `${what} not found` } });

function answer(index: DescriptorIndex, req: AnyRequest, sent: Set<string>): Answer {
  const files = (f: DescFile | undefined, what: string): Answer =>
    f ? { case: "fileDescriptorResponse", value: { fileDescriptorProto: index.closure(f, sent) } } : notFound(what);
  const m = req.messageRequest;
  switch (m.case) {
    case "listServices":
      return { case: "listServicesResponse", value: { service: index.serviceNames().map((name) => ({ name })) } };
    case "fileByFilename":
      return files(index.fileByName(m.value), "file");
    case "fileContainingSymbol":
      return files(index.fileOfSymbol(m.value), "symbol");
    case "fileContainingExtension":
      return files(index.fileOfExtension(m.value.containingType, m.value.extensionNumber), "extension");
    case "allExtensionNumbersOfType": {
      const numbers = index.extensionNumbers(m.value);
      return numbers ? { case: "allExtensionNumbersResponse", value: { baseTypeName: m.value, extensionNumber: numbers } } : notFound("type");
    }
    default:
      return { case: "errorResponse", value: { errorCode: Code.InvalidArgument, errorMessage: "message_request must be set" } };
  }
}

/**
 * Registers both reflection services on a router. `authorize` runs before
 * the first request is read, so reflection answers only callers the
 * service itself would answer.
 */
export function reflectionRoutes(authorize: (ctx: HandlerContext) => void) {
  const index = new DescriptorIndex([
    file_engram_v1_engram,
    // Not imported by engram.proto, but every rejection carries its ErrorInfo in
    // the details: a client decodes them with this file.
    file_google_rpc_error_details,
    v1.file_grpc_reflection_v1_reflection,
    v1alpha.file_grpc_reflection_v1alpha_reflection,
  ]);
  return (router: ConnectRouter) => {
    router.service(v1.ServerReflection, {
      async *serverReflectionInfo(requests, ctx) {
        authorize(ctx);
        const sent = new Set<string>();
        for await (const req of requests) {
          yield create(v1.ServerReflectionResponseSchema, { validHost: req.host, originalRequest: req, messageResponse: answer(index, req, sent) });
        }
      },
    });
    router.service(v1alpha.ServerReflection, {
      async *serverReflectionInfo(requests, ctx) {
        authorize(ctx);
        const sent = new Set<string>();
        for await (const req of requests) {
          yield create(v1alpha.ServerReflectionResponseSchema, { validHost: req.host, originalRequest: req, messageResponse: answer(index, req, sent) });
        }
      },
    });
  };
}
