import { ConnectError, createContextKey, type ContextValues, type Interceptor } from "@connectrpc/connect";
import type { Code } from "@connectrpc/connect";
import { ArgError } from "../argerror/index.js";

/**
 * How a Connect request ended, written where the error is known (the gate's
 * refusals, the service's rejections) and read once the response is out, for
 * the access log and the metrics. The library renders the error into the
 * caller's protocol afterwards, so this is the only place the code is
 * available without parsing a response body or trailer.
 */
export type OutcomeSlot = { code?: Code; hint?: string; fields?: readonly string[] };

const kOutcome = createContextKey<OutcomeSlot | undefined>(undefined, { description: "engram request outcome" });

export function attachOutcome(values: ContextValues): OutcomeSlot {
  const slot: OutcomeSlot = {};
  values.set(kOutcome, slot);
  return slot;
}

/** Records a refusal on the request's slot, if it has one. */
export function noteOutcome(values: ContextValues | undefined, err: ConnectError): void {
  const slot = values?.get(kOutcome);
  if (slot === undefined || slot.code !== undefined) return;
  slot.code = err.code;
  const cause = err.cause;
  if (cause instanceof ArgError) {
    slot.hint = cause.hint;
    slot.fields = cause.fields;
  }
}

/**
 * Notes any error a service method throws, including one a streaming method
 * (reflection) throws while its responses are read; the error passes on
 * unchanged.
 */
export const outcomeInterceptor: Interceptor = (next) => async (req) => {
  const note = (err: unknown): never => {
    noteOutcome(req.contextValues, ConnectError.from(err));
    throw err;
  };
  const res = await next(req).catch(note);
  if (!res.stream) return res;
  const messages = res.message;
  return {
    ...res,
    message: (async function* () {
      try {
        yield* messages;
      } catch (err) {
        note(err);
      }
    })(),
  };
};
