import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Why a tools/call request cannot be dispatched at all, in one sentence, or
 * undefined when it can. These are protocol errors (JSON-RPC -32602), not
 * argument errors: there is no tool yet whose arguments the core could judge.
 */
export function malformedToolCall(message: unknown): string | undefined {
  if (!isPlainObject(message) || message.method !== "tools/call" || !("id" in message)) return undefined;
  const params = message.params;
  if (!isPlainObject(params)) return "tools/call needs params: an object with the tool name and its arguments.";
  if (typeof params.name !== "string") return "tools/call params.name must be a string naming a tool.";
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return "tools/call params.arguments must be an object.";
  if (!CallToolRequestSchema.safeParse(message).success) return "tools/call params are not a valid tool call.";
  return undefined;
}

/** A key that no tool has and no sender can mean, carrying `__proto__` past the SDK. */
const PROTO_STAND_IN = "\u0000__proto__";

/**
 * JSON gives an argument named `__proto__` as an own key, but the SDK copies
 * the arguments into a new object by assignment, where that key sets the
 * prototype instead: the argument would vanish before the core could refuse
 * it as unknown. It crosses the SDK renamed, and sentArgumentNames gives
 * the name back for the unknown-argument check, as Connect sees it.
 */
function keepProtoArgument<T extends JSONRPCMessage>(message: T): T {
  const params = (message as { method?: unknown; params?: unknown }).method === "tools/call" ? (message as { params?: unknown }).params : undefined;
  if (!isPlainObject(params) || !isPlainObject(params.arguments) || !Object.hasOwn(params.arguments, "__proto__")) return message;
  const renamed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params.arguments)) renamed[key === "__proto__" ? PROTO_STAND_IN : key] = value;
  return { ...message, params: { ...params, arguments: renamed } };
}

/** The argument names as the caller sent them (the stand-in read back as `__proto__`). */
export function sentArgumentNames(args: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(args, PROTO_STAND_IN)) return args;
  // No prototype, so `__proto__` is an own key here, not the prototype's setter.
  const sent = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(args)) sent[key === PROTO_STAND_IN ? "__proto__" : key] = value;
  return sent;
}

/**
 * A transport in front of another that answers a malformed tools/call itself.
 * Without it the SDK parses the request with its own schema first and answers
 * -32603 Internal error carrying the whole schema dump, which is neither the
 * caller's fault nor a sentence.
 */
export class ToolCallGuard implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      const refusal = malformedToolCall(message);
      if (refusal === undefined) {
        this.onmessage?.(keepProtoArgument(message), extra);
        return;
      }
      const id = (message as { id: RequestId }).id;
      inner
        .send({ jsonrpc: "2.0", id, error: { code: ErrorCode.InvalidParams, message: refusal } }, { relatedRequestId: id })
        .catch((err: unknown) => this.onerror?.(err instanceof Error ? err : new Error(String(err))));
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion = (version: string): void => {
    this.inner.setProtocolVersion?.(version);
  };

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
