import { create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import {
  BadRequestSchema,
  BadRequest_FieldViolationSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  PreconditionFailure_ViolationSchema,
} from "../gen/google/rpc/error_details_pb.js";
import type { ArgError } from "./arg-error.js";
import { CLASS_CONNECT_CODE } from "./connect-code.js";

/** The ErrorInfo domain every engram envelope carries. */
export const ERROR_DOMAIN = "engram.v1";

export type ConnectDetail<D extends DescMessage = DescMessage> = { desc: D; value: MessageShape<D> };

/** ErrorInfo reason: the hint in UPPER_SNAKE (too_long → TOO_LONG). */
export function reasonOf(err: ArgError): string {
  return err.hint.toUpperCase();
}

/**
 * Typed details built from the same ArgError as the message, so a client
 * branching on ErrorInfo and one parsing the envelope string cannot disagree.
 */
export function connectDetails(err: ArgError): ConnectDetail[] {
  const metadata: Record<string, string> = { fields: err.fields.join(","), hint: err.hint };
  for (const [k, v] of Object.entries(err.bounds)) metadata[k] = String(v);
  const details: ConnectDetail[] = [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: reasonOf(err), domain: ERROR_DOMAIN, metadata }) },
  ];
  const code = CLASS_CONNECT_CODE[err.errorClass];
  if (code === Code.FailedPrecondition) {
    details.push({
      desc: PreconditionFailureSchema,
      value: create(PreconditionFailureSchema, {
        violations: err.fields.map((f) =>
          create(PreconditionFailure_ViolationSchema, { type: err.hint.toUpperCase(), subject: f, description: err.detail }),
        ),
      }),
    });
  } else if (code === Code.InvalidArgument || code === Code.OutOfRange) {
    details.push({
      desc: BadRequestSchema,
      value: create(BadRequestSchema, {
        fieldViolations: err.fields.map((f) =>
          create(BadRequest_FieldViolationSchema, { field: f, description: err.detail, reason: reasonOf(err) }),
        ),
      }),
    });
  }
  return details;
}
